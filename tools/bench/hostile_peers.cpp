#include "hostile_peers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "clock.hpp"
#include "net.hpp"
#include "ws_client.hpp"

namespace sluice::bench {

namespace {

constexpr std::size_t kAnswerKept = 1024;
const std::string kFiller(64 * 1024, 'a');

// A text frame that says `size` bytes follow and is not the message's
// last: the server starts joining a message that never ends. Masked with
// key 0, so the filler goes as it is.
std::string unfinished_frame_head(std::size_t size) {
  std::string h;
  h.push_back(static_cast<char>(0x01));
  h.push_back(static_cast<char>(0x80 | 127));
  for (int shift = 56; shift >= 0; shift -= 8) h.push_back(static_cast<char>((size >> shift) & 0xFF));
  h.append(4, '\0');
  return h;
}

std::string chunked_head(std::size_t size) {
  char line[32];
  std::snprintf(line, sizeof line, "%zx\r\n", size);
  return "POST /pub/hostile HTTP/1.1\r\nHost: bench\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(line);
}

}  // namespace

Attack::~Attack() {
  for (auto& p : peers_) {
    if (p->fd >= 0) ::close(p->fd);
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

std::string Attack::connect() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) return "epoll_create1 failed";
  for (std::size_t i = 0; i < spec_.count; ++i) {
    auto p = std::make_unique<Peer>();
    p->kind = static_cast<Kind>(i % 3);
    const std::string source = "127.0.0." + std::to_string(2 + i / spec_.per_source);
    // The unread streams take as little as the kernel allows, so the
    // server's queue for them fills at once.
    p->fd = dial(spec_.server, p->kind == Kind::unread_stream ? 4096 : 0, source);
    if (p->fd < 0) return "connect " + std::to_string(i) + " from " + source + ": " + std::strerror(-p->fd);
    std::string key;
    switch (p->kind) {
      case Kind::ws_message:
        if (!make_upgrade_request("/pub/hostile", p->head, key)) return "no entropy for a WebSocket key";
        p->head += unfinished_frame_head(spec_.message);
        p->total = p->head.size() + spec_.message;
        break;
      case Kind::chunked_body:
        p->head = chunked_head(spec_.body);
        p->total = p->head.size() + spec_.body;
        break;
      case Kind::unread_stream:
        p->head = "GET /sse/keep HTTP/1.1\r\nHost: bench\r\n\r\n";
        p->total = p->head.size();
        break;
    }
    ::fcntl(p->fd, F_SETFL, ::fcntl(p->fd, F_GETFL) | O_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLOUT | (p->kind == Kind::unread_stream ? 0u : static_cast<std::uint32_t>(EPOLLIN)) | EPOLLET;
    ev.data.ptr = p.get();
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, p->fd, &ev) != 0) return "epoll_ctl failed";
    peers_.push_back(std::move(p));
  }
  return {};
}

void Attack::pump(const std::atomic<bool>& stop) {
  std::vector<epoll_event> events(1024);
  while (!stop.load()) {
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), 100);
    for (int i = 0; i < n; ++i) {
      Peer& p = *static_cast<Peer*>(events[static_cast<std::size_t>(i)].data.ptr);
      if (p.fd < 0) continue;
      if (events[static_cast<std::size_t>(i)].events & EPOLLIN) read_answer(p);
      if (p.fd >= 0 && (events[static_cast<std::size_t>(i)].events & EPOLLOUT)) write_some(p);
    }
  }
}

void Attack::write_some(Peer& p) {
  while (p.sent < p.total) {
    const char* data = nullptr;
    std::size_t size = 0;
    if (p.sent < p.head.size()) {
      data = p.head.data() + p.sent;
      size = p.head.size() - p.sent;
    } else {
      data = kFiller.data();
      size = std::min(kFiller.size(), p.total - p.sent);
    }
    const ssize_t n = ::send(p.fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return;  // EAGAIN: EPOLLOUT comes back; an error: EPOLLIN tells
    p.sent += static_cast<std::size_t>(n);
    bytes_sent_ += static_cast<std::uint64_t>(n);
  }
}

void Attack::read_answer(Peer& p) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(p.fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      if (p.answer.size() < kAnswerKept) p.answer.append(buffer, static_cast<std::size_t>(std::min<ssize_t>(n, 512)));
      continue;
    }
    if (n < 0 && errno == EAGAIN) return classify(p);
    classify(p);
    if (p.outcome.load() == Outcome::open) p.outcome = Outcome::answered_other;
    ::close(p.fd);  // closing deregisters it
    p.fd = -1;
    return;
  }
}

// A WebSocket attacker's answer is the 101 head, then a close frame; a
// chunked one's is a status line.
void Attack::classify(Peer& p) {
  if (p.outcome.load() != Outcome::open) return;
  if (p.kind == Kind::chunked_body) {
    if (p.answer.size() < 12) return;
    p.outcome = p.answer.compare(9, 3, "503") == 0 ? Outcome::answered_503 : Outcome::answered_other;
    return;
  }
  const std::size_t end = p.answer.find("\r\n\r\n");
  if (end == std::string::npos || p.answer.size() < end + 6) return;
  const auto* frame = reinterpret_cast<const unsigned char*>(p.answer.data() + end + 4);
  const int code = (frame[0] & 0x0F) == 0x8 ? (frame[2] << 8 | frame[3]) : 0;
  p.outcome = code == 1009 ? Outcome::closed_1009 : Outcome::answered_other;
}

AttackTally Attack::tally() const {
  AttackTally t;
  for (const auto& p : peers_) {
    switch (p->outcome.load()) {
      case Outcome::open:
        ++t.held;
        break;
      case Outcome::closed_1009:
        ++t.closed_1009;
        break;
      case Outcome::answered_503:
        ++t.answered_503;
        break;
      case Outcome::answered_other:
        ++t.answered_other;
        break;
    }
  }
  t.bytes_sent = bytes_sent_.load();
  return t;
}

Witnesses::~Witnesses() {
  stopping_ = true;
  for (Stream* s : {&sse_, &ws_}) {
    if (s->fd >= 0) ::shutdown(s->fd, SHUT_RDWR);
    if (s->reader.joinable()) s->reader.join();
    if (s->fd >= 0) ::close(s->fd);
  }
}

std::string Witnesses::open(std::uint64_t deadline_ns) {
  sse_.fd = dial(server_);
  if (sse_.fd < 0) return "SSE subscriber could not connect";
  if (!write_all(sse_.fd, "GET /sse/" + topic_ + " HTTP/1.1\r\nHost: bench\r\n\r\n")) return "SSE request failed";
  // The stream head says the subscription is made.
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    pollfd pfd{sse_.fd, POLLIN, 0};
    if (now_ns() >= deadline_ns || ::poll(&pfd, 1, 100) < 0) return "no SSE stream head";
    if ((pfd.revents & POLLIN) == 0) continue;
    const ssize_t n = ::recv(sse_.fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "SSE stream closed before its head";
    head.append(buffer, static_cast<std::size_t>(n));
  }
  if (head.compare(0, 12, "HTTP/1.1 200") != 0) return "SSE stream answered " + head.substr(0, 12);
  sse_.reader = std::thread([this, rest = head.substr(head.find("\r\n\r\n") + 4)] { read_sse(sse_, rest); });
  WsConnection ws = ws_connect(server_, "/ws/" + topic_, deadline_ns);
  if (ws.fd < 0) return "WebSocket subscriber: " + ws.error;
  ws_.fd = ws.fd;
  ws_.reader = std::thread([this, rest = std::move(ws.leftover)] { read_ws(ws_, rest); });
  return {};
}

void Witnesses::take_event(Stream& s, std::string_view data) {
  if (!data.starts_with("event ")) {
    s.out_of_order = true;
    return;
  }
  const std::size_t n = std::strtoul(std::string(data.substr(6)).c_str(), nullptr, 10);
  const std::lock_guard lock(s.mutex);
  if (!s.numbers.empty() && n <= s.numbers.back()) s.out_of_order = true;
  s.numbers.push_back(n);
}

bool Witnesses::has_all(Stream& s, const std::vector<std::size_t>& accepted) {
  const std::lock_guard lock(s.mutex);
  return std::includes(s.numbers.begin(), s.numbers.end(), accepted.begin(), accepted.end());
}

void Witnesses::read_sse(Stream& s, std::string buffered) {
  char buffer[16384];
  for (;;) {
    for (std::size_t end; (end = buffered.find('\n')) != std::string::npos;) {
      const std::string_view line(buffered.data(), end);
      if (line.starts_with("data: ")) take_event(s, line.substr(6));
      buffered.erase(0, end + 1);
    }
    const ssize_t n = ::recv(s.fd, buffer, sizeof buffer, 0);
    if (n <= 0 || stopping_) return;
    buffered.append(buffer, static_cast<std::size_t>(n));
  }
}

// Server frames are unmasked; pings are answered so the server's liveness
// check does not close a reader that is listening.
void Witnesses::read_ws(Stream& s, std::string buffered) {
  char buffer[16384];
  for (;;) {
    while (buffered.size() >= 2) {
      const auto* b = reinterpret_cast<const unsigned char*>(buffered.data());
      std::size_t length = b[1] & 0x7F;
      std::size_t at = 2;
      if (length == 126) {
        if (buffered.size() < 4) break;
        length = static_cast<std::size_t>(b[2] << 8 | b[3]);
        at = 4;
      } else if (length == 127) {
        if (buffered.size() < 10) break;
        length = 0;
        for (int i = 2; i < 10; ++i) length = length << 8 | b[i];
        at = 10;
      }
      if (buffered.size() < at + length) break;
      const std::string_view payload(buffered.data() + at, length);
      const int opcode = b[0] & 0x0F;
      if (opcode == 0x1) take_event(s, payload);
      if (opcode == 0x9) {
        std::string pong;
        if (append_masked(pong, proto::ws::Opcode::pong, payload)) (void)write_all(s.fd, pong);
      }
      buffered.erase(0, at + length);
    }
    const ssize_t n = ::recv(s.fd, buffer, sizeof buffer, 0);
    if (n <= 0 || stopping_) return;
    buffered.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string Witnesses::check(const std::vector<std::size_t>& accepted, std::uint64_t deadline_ns) {
  while (!(sse_.out_of_order || ws_.out_of_order) && !(has_all(sse_, accepted) && has_all(ws_, accepted))) {
    if (now_ns() >= deadline_ns) {
      const std::lock_guard a(sse_.mutex);
      const std::lock_guard b(ws_.mutex);
      return "after the attack, SSE had " + std::to_string(sse_.numbers.size()) + " and WebSocket " +
             std::to_string(ws_.numbers.size()) + " events; " + std::to_string(accepted.size()) + " were accepted";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (sse_.out_of_order || ws_.out_of_order) return "a subscriber got an event out of order";
  return {};
}

}  // namespace sluice::bench
