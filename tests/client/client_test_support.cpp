#include "client_test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <thread>

#include "io/socket.hpp"

namespace sluice::client::test {

namespace {

using Clock = std::chrono::steady_clock;

int left_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

}  // namespace

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() >= deadline) return done();
    std::this_thread::sleep_for(1ms);  // a poll interval, not a synchronisation: the condition decides
  }
  return true;
}

Peer::~Peer() { close(); }

void Peer::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Peer::send(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

bool Peer::read_some(std::chrono::milliseconds limit) {
  if (fd_ < 0 || eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
  char chunk[65536];
  const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

bool Peer::read_until(std::string_view needle, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (buffer_.find(needle) == std::string::npos) {
    if (Clock::now() >= deadline || (!read_some(std::chrono::milliseconds(left_ms(deadline))) && eof_)) {
      return buffer_.find(needle) != std::string::npos;
    }
  }
  return true;
}

bool Peer::read_at_least(std::size_t n, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (buffer_.size() < n) {
    if (Clock::now() >= deadline || (!read_some(std::chrono::milliseconds(left_ms(deadline))) && eof_)) {
      return buffer_.size() >= n;
    }
  }
  return true;
}

bool Peer::read_until_closed(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!eof_ && Clock::now() < deadline) read_some(std::chrono::milliseconds(left_ms(deadline)));
  return eof_;
}

FakeServer::FakeServer() {
  fd_ = io::listen_tcp(io::Endpoint{"127.0.0.1", 0}, io::ListenOptions{});
  if (fd_ >= 0) port_ = io::local_port(fd_);
}

FakeServer::~FakeServer() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<Peer> FakeServer::accept(std::chrono::milliseconds limit) {
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return nullptr;
  const int fd = io::accept_nonblocking(fd_);
  if (fd < 0) return nullptr;
  io::set_nonblocking(fd, false);
  return std::make_unique<Peer>(fd);
}

std::uint16_t closed_port() {
  static const int fd = [] {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? s : -1;
  }();
  return fd < 0 ? 0 : io::local_port(fd);
}

std::string sse_head(int retry_ms) {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\nretry: " +
         std::to_string(retry_ms) + "\n\n";
}

std::uint64_t seq_of(std::string_view id) {
  const std::string_view digits = id.substr(id.rfind(':') + 1);
  std::uint64_t seq = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), seq);
  return seq;
}

std::string http_url(std::uint16_t port, std::string_view path) {
  return "http://127.0.0.1:" + std::to_string(port) + std::string(path);
}

std::string ws_url(std::uint16_t port, std::string_view path) {
  return "ws://127.0.0.1:" + std::to_string(port) + std::string(path);
}

}  // namespace sluice::client::test
