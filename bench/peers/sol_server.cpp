// sol-server: the "speed of light" for a push server, the cheapest correct
// thing that delivers the same bytes: it does nothing a real server must do
// per event (no parsing, no encoding, no queueing, no history). Its figure
// is the ceiling no protocol server can beat on this machine with the
// bench's client, and its CPU per delivered event the floor of that cost.
//
// GET /sse/{topic} gets SSE events; GET /ws/{topic} with a WebSocket upgrade
// gets a 101 and then unmasked text frames. What a subscriber sends is read
// and dropped (no pongs, no close reply). Three modes:
//  - stream (default): per round, every writable subscriber gets one
//    prebuilt contiguous batch of --batch events (sol_batch.hpp) in one
//    send(); a full socket is skipped until it drains, never dropped from,
//    so each stream is that batch repeated without a gap. The batch is never
//    rewritten: no latency can be read from it (stamp 0), and its numbers
//    start again at 1 each batch (publisher index ff). POST /pub/{topic}
//    is answered at once with "generator":true and ignored, so the bench
//    knows to start no publisher.
//  - relay: each POST /pub/{topic} body is framed once and sent to every
//    subscriber, one send() each (sol_subscribers.hpp): the floor for one
//    broadcast, with the publisher's stamp, so its latency is measured.
//  - burst: every new subscriber gets --events prebuilt events at once,
//    stamped and numbered for it, after its stream head.
// A WebSocket on GET /pub/{topic} is accepted and its messages dropped.
// With --tls-cert and --tls-key every connection is TLS (sol_tls.hpp):
// the same rounds, each send() an SSL_write of the same bytes, so its cost
// per event is the floor of a push server over TLS.
// Two other ways to send a stream round (clear text), to measure what
// they save against one send() per subscriber:
//  - --uring: the round's sends all go in one io_uring submission
//    (sol_uring.hpp), each answered as send() is; accepting, reading and
//    EPOLLOUT stay on epoll.
//  - --zerocopy: each round's send carries MSG_ZEROCOPY on sockets opted
//    in with SO_ZEROCOPY (sol_zerocopy.hpp); the kernel's notifications
//    are read from each socket's error queue when epoll says EPOLLERR.
// Either or both; at exit the server says on stderr how many submissions
// it made and how many zero-copy sends the kernel copied anyway.
// It trusts its input: it only ever talks to sluice-bench.
//
//   sol-server --listen 127.0.0.1:0 [--batch 256] [--size 64]
//              [--mode stream|relay|burst] [--events 1000]
//              [--tls-cert FILE --tls-key FILE] [--uring] [--zerocopy]
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/socket.hpp"
#include "proto/ws_handshake.hpp"
#include "sol_batch.hpp"
#include "sol_request.hpp"
#include "sol_subscribers.hpp"
#include "sol_tls.hpp"
#include "sol_zerocopy.hpp"
#ifdef SOL_HAVE_URING
#include "sol_uring.hpp"
#endif

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

enum class Mode { stream, relay, burst };

struct Options {
  std::string listen = "127.0.0.1:8080";
  std::size_t batch = 256;
  std::size_t size = 64;
  Mode mode = Mode::stream;
  std::size_t events = 1000;
  std::string tls_cert;  // both set: every connection is TLS
  std::string tls_key;
  bool uring = false;     // a round's sends in one io_uring submission
  bool zerocopy = false;  // a round's sends with MSG_ZEROCOPY
};

#ifdef SOL_HAVE_URING
// Enough submission slots for 10,000 subscribers' sends in one submission.
constexpr unsigned kUringEntries = 16384;
#endif

constexpr std::string_view kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";
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

std::string json_reply(std::size_t subscribers, bool generator) {
  const std::string body = "{\"topic\":\"sol\",\"id\":\"0\",\"subscribers\":" + std::to_string(subscribers) +
                           (generator ? ",\"generator\":true}\n" : "}\n");
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

// A connection that is not a subscriber: requests, or a WebSocket publisher.
struct Peer {
  std::string in;
  bool websocket = false;    // upgraded publisher: its input is dropped
  bool handshaking = false;  // TLS: its handshake is not done yet
};

class SolServer {
 public:
  SolServer(const Options& o, int listen_fd, const sluice::peers::SolTls* tls)
      : o_(o),
        tls_(tls),
        listen_fd_(listen_fd),
        sse_batch_(o.batch, o.size, SolFraming::sse, sluice::peers::kSolGeneratorIndex, false),
        ws_batch_(o.batch, o.size, SolFraming::websocket, sluice::peers::kSolGeneratorIndex, false),
        sse_burst_(o.mode == Mode::burst ? o.events : 0, o.size, SolFraming::sse, 0, true),
        ws_burst_(o.mode == Mode::burst ? o.events : 0, o.size, SolFraming::websocket, 0, false) {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{EPOLLIN, {.fd = listen_fd_}};
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, listen_fd_, &ev);
  }

  // Sends rounds through `uring` (not owned) when set, and with
  // MSG_ZEROCOPY when the options say so.
  void use_round_path(sluice::peers::SolUring* uring) { subscribers_.use_round_path(uring, o_.zerocopy); }

  // What the other round paths did, for stderr at exit.
  void report(const sluice::peers::SolUring* uring) const {
#ifdef SOL_HAVE_URING
    if (uring != nullptr) {
      std::fprintf(stderr, "sol-server: %llu round sends in %zu io_uring submissions\n",
                   static_cast<unsigned long long>(subscribers_.round_sends()), uring->submissions());
    }
#else
    (void)uring;
#endif
    if (!o_.zerocopy) return;
    std::fprintf(stderr,
                 "sol-server: MSG_ZEROCOPY: %llu sends, %llu completed in %llu notifications, %llu of them copied "
                 "(SO_EE_CODE_ZEROCOPY_COPIED)\n",
                 static_cast<unsigned long long>(subscribers_.round_sends()),
                 static_cast<unsigned long long>(zerocopy_.completed),
                 static_cast<unsigned long long>(zerocopy_.notifications),
                 static_cast<unsigned long long>(zerocopy_.copied));
  }

  void run() {
    while (g_stop == 0) {
      const bool rounds = o_.mode == Mode::stream && subscribers_.writable() > 0;
      poll_events(rounds ? 0 : 100);
      if (rounds) {
        subscribers_.send_round(ws_batch_.bytes(), sse_batch_.bytes(), failed_);
        drop_failed();
      }
    }
  }

 private:
  void poll_events(int timeout_ms) {
    epoll_event events[256];
    const int n = ::epoll_wait(epoll_, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listen_fd_) accept_all();
      else on_ready(fd, events[i].events);
    }
    drop_failed();
  }

  void accept_all() {
    for (int fd; (fd = sluice::io::accept_nonblocking(listen_fd_)) >= 0;) {
      sluice::io::set_nodelay(fd, true);
      peers_[fd] = Peer{.handshaking = tls_ != nullptr};
      if (tls_ != nullptr) {
        if (ssl_of_fd_.size() <= static_cast<std::size_t>(fd)) ssl_of_fd_.resize(static_cast<std::size_t>(fd) + 1);
        ssl_of_fd_[static_cast<std::size_t>(fd)].reset(tls_->accept(fd));
      }
      epoll_event ev{EPOLLIN | EPOLLOUT | EPOLLET, {.fd = fd}};
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
    }
  }

  void on_ready(int fd, std::uint32_t events) {
    if ((events & EPOLLHUP) != 0) return failed_.push_back(fd);
    if ((events & EPOLLERR) != 0) {
      // With MSG_ZEROCOPY the error queue holds the kernel's notifications;
      // reading them also frees room a refused send (ENOBUFS) waits for.
      if (!o_.zerocopy || !subscribers_.contains(fd) || !sluice::peers::reap_zerocopy(fd, zerocopy_)) {
        return failed_.push_back(fd);
      }
      events |= EPOLLOUT;
    }
    const auto it = peers_.find(fd);
    const bool handshaking = it != peers_.end() && it->second.handshaking;
    if (((events & EPOLLIN) != 0 || handshaking) && !read_input(fd)) return failed_.push_back(fd);
    if ((events & EPOLLOUT) != 0 && !subscribers_.on_writable(fd)) failed_.push_back(fd);
  }

  SSL* ssl_of(int fd) const {
    return static_cast<std::size_t>(fd) < ssl_of_fd_.size() ? ssl_of_fd_[static_cast<std::size_t>(fd)].get() : nullptr;
  }

  long receive(int fd, char* into, std::size_t size) const {
    SSL* ssl = ssl_of(fd);
    return ssl != nullptr ? sluice::peers::sol_tls_read(ssl, into, size) : ::recv(fd, into, size, 0);
  }

  // Subscribers' and publishers' input is read and dropped; requests are
  // answered. A TLS connection makes its handshake first.
  bool read_input(int fd) {
    if (const auto it = peers_.find(fd); it != peers_.end() && it->second.handshaking) {
      SSL* ssl = ssl_of(fd);
      const int done = ssl != nullptr ? sluice::peers::sol_handshake(ssl) : -1;
      if (done <= 0) return done == 0;
      it->second.handshaking = false;
    }
    char chunk[65536];
    for (long n; (n = receive(fd, chunk, sizeof chunk)) != 0;) {
      if (n < 0) return errno == EAGAIN || errno == EINTR;
      const auto it = peers_.find(fd);
      if (it == peers_.end() || it->second.websocket) continue;
      it->second.in.append(chunk, static_cast<std::size_t>(n));
      if (!answer(fd, it->second)) return false;
    }
    return false;
  }

  bool answer(int fd, Peer& peer) {
    std::string replies;
    std::size_t used = 0;
    sluice::peers::SolRequest r;
    while (!peer.websocket && read_request(std::string_view(peer.in).substr(used), r)) {
      used += r.size;
      if (r.method == "GET" && !r.ws_key.empty()) {
        const std::string head = upgrade_reply(r.ws_key);
        if (head.empty()) {
          replies += kBadRequest;
        } else if (r.path.starts_with("/ws/")) {
          return subscribe(fd, true, head);
        } else if (r.path.starts_with("/pub/")) {
          peer.websocket = true;
          replies += head;
        } else {
          replies += kNotFound;
        }
      } else if (r.method == "GET" && r.path.starts_with("/sse/")) {
        return subscribe(fd, false, std::string(kSseHead));
      } else if (r.method == "POST" && r.path.starts_with("/pub/")) {
        if (o_.mode == Mode::relay) relay(r.body);
        replies += json_reply(subscribers_.size(), o_.mode == Mode::stream);
      } else {
        replies += r.path == "/healthz" ? kHealthReply : kNotFound;
      }
    }
    peer.in.erase(0, peer.websocket ? peer.in.size() : used);
    // Replies are small and the bench reads them: a short write is an error.
    if (replies.empty()) return true;
    SSL* ssl = ssl_of(fd);
    const long sent = ssl != nullptr ? sluice::peers::sol_tls_write(ssl, replies)
                                     : ::send(fd, replies.data(), replies.size(), MSG_NOSIGNAL);
    return sent == static_cast<long>(replies.size());
  }

  // The connection becomes a subscriber: it reads no more requests.
  bool subscribe(int fd, bool websocket, std::string head) {
    peers_.erase(fd);
    if (o_.mode == Mode::burst) {
      SolBatch& burst = websocket ? ws_burst_ : sse_burst_;
      burst.stamp(1, now_ns());
      head.append(burst.bytes());
    }
    if (o_.zerocopy && ssl_of(fd) == nullptr && !sluice::peers::enable_zerocopy(fd)) return false;
    return subscribers_.add(fd, websocket, std::move(head), ssl_of(fd));
  }

  void relay(std::string_view payload) {
    const std::string ws = sluice::peers::sol_frame(payload, SolFraming::websocket);
    const std::string sse = sluice::peers::sol_frame(payload, SolFraming::sse);
    subscribers_.broadcast(ws, sse, failed_);
  }

  void drop_failed() {
    for (const int fd : failed_) {
      if (!subscribers_.contains(fd) && peers_.find(fd) == peers_.end()) continue;
      subscribers_.remove(fd);
      peers_.erase(fd);
      ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
      if (static_cast<std::size_t>(fd) < ssl_of_fd_.size()) ssl_of_fd_[static_cast<std::size_t>(fd)].reset();
      ::close(fd);
    }
    failed_.clear();
  }

  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };

  Options o_;
  const sluice::peers::SolTls* tls_;  // null: clear text
  std::vector<std::unique_ptr<SSL, SslFree>> ssl_of_fd_;
  int listen_fd_;
  int epoll_;
  SolBatch sse_batch_;
  SolBatch ws_batch_;
  SolBatch sse_burst_;
  SolBatch ws_burst_;
  sluice::peers::SolSubscribers subscribers_;
  std::unordered_map<int, Peer> peers_;
  std::vector<int> failed_;
  sluice::peers::SolZerocopyTally zerocopy_;
};

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view key = argv[i];
    if (key == "--uring") {
      o.uring = true;
      continue;
    }
    if (key == "--zerocopy") {
      o.zerocopy = true;
      continue;
    }
    if (i + 1 == argc) return false;
    const std::string_view value = argv[++i];
    if (key == "--listen") o.listen = value;
    else if (key == "--batch") o.batch = std::strtoul(value.data(), nullptr, 10);
    else if (key == "--size") o.size = std::strtoul(value.data(), nullptr, 10);
    else if (key == "--events") o.events = std::strtoul(value.data(), nullptr, 10);
    else if (key == "--tls-cert") o.tls_cert = value;
    else if (key == "--tls-key") o.tls_key = value;
    else if (key == "--mode" && value == "stream") o.mode = Mode::stream;
    else if (key == "--mode" && value == "relay") o.mode = Mode::relay;
    else if (key == "--mode" && value == "burst") o.mode = Mode::burst;
    else return false;
  }
  return o.batch > 0 && o.tls_cert.empty() == o.tls_key.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  sluice::io::Endpoint where;
  if (!parse_args(argc, argv, o) || !sluice::io::parse_endpoint(o.listen, where)) {
    std::fprintf(stderr,
                 "usage: sol-server --listen HOST:PORT [--batch N] [--size B] [--mode stream|relay|burst] [--events K]"
                 " [--tls-cert FILE --tls-key FILE] [--uring] [--zerocopy]\n");
    return 2;
  }
  if ((o.uring || o.zerocopy) && !o.tls_cert.empty()) {
    std::fprintf(stderr, "sol-server: --uring and --zerocopy send clear text only\n");
    return 2;
  }
  // A deep backlog: the many-connection scenario connects thousands at once.
  const int fd = sluice::io::listen_tcp(where, {.backlog = 65535});
  if (fd < 0) return 1;
  std::unique_ptr<sluice::peers::SolTls> tls;
  if (!o.tls_cert.empty()) {
    tls = std::make_unique<sluice::peers::SolTls>(o.tls_cert, o.tls_key);
    if (!tls->error().empty()) {
      std::fprintf(stderr, "sol-server: %s\n", tls->error().c_str());
      return 2;
    }
  }
  std::signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write(): a closed subscriber must not end the server
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::printf("sol-server listening on %s:%u\n", where.host.c_str(), sluice::io::local_port(fd));
  std::fflush(stdout);
#ifdef SOL_HAVE_URING
  std::unique_ptr<sluice::peers::SolUring> ring;
  if (o.uring) {
    ring = std::make_unique<sluice::peers::SolUring>(kUringEntries);
    if (!ring->error().empty()) {
      std::fprintf(stderr, "sol-server: --uring: %s\n", ring->error().c_str());
      return 2;
    }
  }
  sluice::peers::SolUring* uring = ring.get();
#else
  if (o.uring) {
    std::fprintf(stderr, "sol-server: --uring: built without liburing (liburing-dev)\n");
    return 2;
  }
  sluice::peers::SolUring* uring = nullptr;
#endif
  SolServer server(o, fd, tls.get());
  server.use_round_path(uring);
  server.run();
  server.report(uring);
  return 0;
}
