// sol-server: the "speed of light" for a push server. It does nothing a real
// server must do per event (no parsing, no encoding, no queueing, no
// history): it send()s one prebuilt batch of events to every writable
// subscriber, round after round, and skips a subscriber whose socket is
// full until it drains (so it drops rather than queues; the bench counts
// those as id or sequence gaps). Its figure is the ceiling no protocol
// server can beat on this machine with this client.
//
// GET /sse/{topic} gets the batch as SSE events; GET /ws/{topic} with a
// WebSocket upgrade gets a 101 and then the same events as unmasked text
// frames. Each round restamps the time and the sequence number of every
// event (and the SSE id). What a WebSocket peer sends is read and dropped:
// no pongs, no close reply.
//
// To take part in the same scenarios as every other server it answers
// POST /pub/{topic} at once with a fixed JSON reply and ignores the body,
// and accepts a WebSocket publisher on GET /pub/{topic} whose messages it
// drops: its events come from its own generator (--mode stream), or, with
// --mode burst, every new subscriber gets --events prebuilt events at once.
//
//   sol-server --listen 127.0.0.1:0 [--batch 256] [--size 64]
//              [--mode stream|burst] [--events 1000]
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <unordered_map>

#include "io/socket.hpp"
#include "proto/ws_handshake.hpp"
#include "sol_batch.hpp"
#include "sol_request.hpp"

namespace {

using sluice::peers::SolBatch;
using sluice::peers::SolFraming;

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_signal(int) { g_stop = 1; }

std::uint64_t now_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

struct Options {
  std::string listen = "127.0.0.1:8080";
  std::size_t batch = 256;
  std::size_t size = 64;
  bool burst = false;
  std::size_t events = 1000;
};

constexpr std::string_view kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";
constexpr std::string_view kPubReply =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 41\r\n\r\n"
    "{\"topic\":\"sol\",\"id\":\"0\",\"subscribers\":0}\n";
constexpr std::string_view kHealthReply = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
constexpr std::string_view kNotFound = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
constexpr std::string_view kBadRequest = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";

// The 101 reply to an upgrade with `key`; empty when the key cannot be hashed.
std::string upgrade_reply(std::string_view key) {
  char accept[sluice::proto::ws::kAcceptSize + 1];
  if (!sluice::proto::ws::compute_accept(key, accept)) return {};
  return std::string("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Accept: ") +
         accept + "\r\n\r\n";
}

struct Client {
  int fd = -1;
  std::string in;
  std::string pending;  // the unsent rest of a batch, or a burst
  bool subscriber = false;
  bool websocket = false;  // upgraded: gets frames, and its input is dropped
};

class SolServer {
 public:
  SolServer(const Options& o, int listen_fd)
      : o_(o),
        listen_fd_(listen_fd),
        sse_batch_(o.batch, o.size, SolFraming::sse),
        ws_batch_(o.batch, o.size, SolFraming::websocket),
        sse_burst_(o.burst ? o.events : 0, o.size, SolFraming::sse),
        ws_burst_(o.burst ? o.events : 0, o.size, SolFraming::websocket) {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{EPOLLIN, {.fd = listen_fd_}};
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, listen_fd_, &ev);
  }

  void run() {
    while (g_stop == 0) {
      poll_events(writable_ > 0 ? 0 : 100);
      if (!o_.burst && writable_ > 0) send_round();
    }
  }

 private:
  void poll_events(int timeout_ms) {
    epoll_event events[256];
    const int n = ::epoll_wait(epoll_, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.fd == listen_fd_) accept_all();
      else on_ready(events[i].data.fd, events[i].events);
    }
  }

  void accept_all() {
    for (int fd; (fd = sluice::io::accept_nonblocking(listen_fd_)) >= 0;) {
      sluice::io::set_nodelay(fd, true);
      clients_[fd] = Client{.fd = fd};
      epoll_event ev{EPOLLIN | EPOLLOUT | EPOLLET, {.fd = fd}};
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
    }
  }

  void on_ready(int fd, std::uint32_t events) {
    Client& c = clients_[fd];
    if ((events & (EPOLLHUP | EPOLLERR)) != 0) return drop(c);
    if ((events & EPOLLIN) != 0 && !read_requests(c)) return drop(c);
    if ((events & EPOLLOUT) != 0 && !c.pending.empty()) send_pending(c);
  }

  bool read_requests(Client& c) {
    char chunk[65536];
    for (ssize_t n; (n = ::recv(c.fd, chunk, sizeof chunk, 0)) != 0;) {
      if (n < 0) return errno == EAGAIN || errno == EINTR;
      if (c.websocket) continue;
      c.in.append(chunk, static_cast<std::size_t>(n));
      answer(c);
    }
    return false;
  }

  void answer(Client& c) {
    std::string replies;
    std::size_t used = 0;
    sluice::peers::SolRequest r;
    while (!c.websocket && read_request(std::string_view(c.in).substr(used), r)) {
      used += r.size;
      if (r.method == "GET" && !r.ws_key.empty()) {
        upgrade(c, r, replies);
      } else if (r.method == "GET" && r.path.starts_with("/sse/")) {
        subscribe(c);
      } else {
        replies += r.method == "POST" && r.path.starts_with("/pub/") ? kPubReply
                   : r.path == "/healthz"                           ? kHealthReply
                                                                     : kNotFound;
      }
    }
    c.in.erase(0, c.websocket ? c.in.size() : used);
    if (replies.empty() || c.subscriber) return;
    c.pending += replies;
    send_pending(c);
  }

  // /ws/{topic} subscribes; /pub/{topic} is a publisher, read and ignored.
  void upgrade(Client& c, const sluice::peers::SolRequest& r, std::string& replies) {
    const bool subscriber = r.path.starts_with("/ws/");
    if (!subscriber && !r.path.starts_with("/pub/")) {
      replies += kNotFound;
      return;
    }
    const std::string head = upgrade_reply(r.ws_key);
    if (head.empty()) {
      replies += kBadRequest;
      return;
    }
    c.websocket = true;
    if (subscriber) return subscribe(c, head);
    replies += head;
  }

  void subscribe(Client& c, std::string_view head = kSseHead) {
    c.subscriber = true;
    c.pending.assign(head);
    if (o_.burst) {
      SolBatch& burst = c.websocket ? ws_burst_ : sse_burst_;
      burst.stamp(1, now_ns());
      c.pending += burst.bytes();
    }
    send_pending(c);
  }

  // Sends what is left; a subscriber with nothing left joins the rounds.
  void send_pending(Client& c) {
    const ssize_t n = ::send(c.fd, c.pending.data(), c.pending.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) c.pending.erase(0, static_cast<std::size_t>(n));
    if (c.pending.empty() && c.subscriber && !o_.burst) ++writable_;
  }

  void send_round() {
    const std::uint64_t now = now_ns();
    sse_batch_.stamp(next_id_, now);
    ws_batch_.stamp(next_id_, now);
    next_id_ += sse_batch_.count();
    for (auto& [fd, c] : clients_) {
      if (!c.subscriber || !c.pending.empty()) continue;
      const std::string& bytes = c.websocket ? ws_batch_.bytes() : sse_batch_.bytes();
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n == static_cast<ssize_t>(bytes.size())) continue;
      c.pending.assign(bytes, n > 0 ? static_cast<std::size_t>(n) : 0);
      --writable_;
    }
  }

  void drop(Client& c) {
    if (c.subscriber && c.pending.empty() && !o_.burst) --writable_;
    const int fd = c.fd;
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    clients_.erase(fd);
  }

  Options o_;
  int listen_fd_;
  int epoll_;
  SolBatch sse_batch_;
  SolBatch ws_batch_;
  SolBatch sse_burst_;
  SolBatch ws_burst_;
  std::uint64_t next_id_ = 1;
  std::size_t writable_ = 0;
  std::unordered_map<int, Client> clients_;
};

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--listen") o.listen = value;
    else if (key == "--batch") o.batch = std::strtoul(value, nullptr, 10);
    else if (key == "--size") o.size = std::strtoul(value, nullptr, 10);
    else if (key == "--events") o.events = std::strtoul(value, nullptr, 10);
    else if (key == "--mode") o.burst = std::string_view(value) == "burst";
    else return false;
  }
  return argc % 2 == 1 && o.batch > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  sluice::io::Endpoint where;
  if (!parse_args(argc, argv, o) || !sluice::io::parse_endpoint(o.listen, where)) {
    std::fprintf(stderr, "usage: sol-server --listen HOST:PORT [--batch N] [--size B] [--mode stream|burst] [--events K]\n");
    return 2;
  }
  const int fd = sluice::io::listen_tcp(where, {});
  if (fd < 0) return 1;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::printf("sol-server listening on %s:%u\n", where.host.c_str(), sluice::io::local_port(fd));
  std::fflush(stdout);
  SolServer(o, fd).run();
  return 0;
}
