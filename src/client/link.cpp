#include "link.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace sluice::client::detail {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// try_connect()'s answer when the Wake interrupted it.
constexpr int kInterrupted = -1;

int poll_timeout(milliseconds timeout) {
  if (timeout.count() < 0) return -1;
  return static_cast<int>(std::min<milliseconds::rep>(timeout.count(), 1 << 30));
}

// How often a wait looks at an interrupt flag it has no Wake for.
constexpr int kInterruptLookMs = 100;

milliseconds left_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return std::max(left, milliseconds(0));
}

// A deadline `timeout` from now; a negative timeout never passes.
Clock::time_point deadline_after(milliseconds timeout) {
  return timeout.count() < 0 ? Clock::time_point::max() : Clock::now() + timeout;
}

milliseconds left_or_forever(Clock::time_point deadline) {
  return deadline == Clock::time_point::max() ? milliseconds(-1) : left_until(deadline);
}

}  // namespace

ClientError errno_error(ErrorKind kind, std::string_view what, int err) {
  return ClientError{.kind = kind, .message = std::string(what) + ": " + std::strerror(err)};
}

ClientError io_result_error(IoResult result, const Link& link, std::string_view during) {
  const std::string what(during);
  if (result == IoResult::error && !link.tls_failure().empty()) {
    return {.kind = ErrorKind::io_error, .message = link.tls_failure() + " " + what};
  }
  switch (result) {
    case IoResult::eof:
      return {.kind = ErrorKind::closed, .message = "the server closed the connection " + what};
    case IoResult::timeout:
      return {.kind = ErrorKind::idle_timeout, .message = "nothing arrived in time " + what};
    case IoResult::interrupted:
      return {.kind = ErrorKind::aborted, .message = "the connection was given up " + what};
    default:
      return errno_error(ErrorKind::io_error, "socket error " + what, link.last_errno());
  }
}

Link::Link(Wake* wake, const std::atomic<bool>* interrupt) : wake_(wake), interrupt_(interrupt) {}

Link::~Link() { close(); }

void Link::close() {
  // close_notify, if the socket takes it now: the server learns the stream
  // ended on purpose. Nothing is waited for.
  if (tls_ != nullptr) (void)tls_->shutdown();
  tls_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Link::speaks_h2() const { return tls_ != nullptr && tls_->protocol() == transport::AppProtocol::h2; }

ClientError Link::connect(const Url& url, milliseconds timeout, int receive_buffer, const transport::TlsContext* tls) {
  close();
  tls_failure_.clear();
  const auto deadline = Clock::now() + timeout;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  const std::string port = std::to_string(url.port);
  addrinfo* list = nullptr;
  if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &list); rc != 0) {
    return {.kind = ErrorKind::connect_failed, .message = "resolve " + url.host + ": " + ::gai_strerror(rc)};
  }
  int err = EHOSTUNREACH;
  for (const addrinfo* a = list; a != nullptr && fd_ < 0 && err != kInterrupted; a = a->ai_next) {
    err = try_connect(a->ai_addr, a->ai_addrlen, a->ai_family, timeout, receive_buffer);
  }
  ::freeaddrinfo(list);
  if (fd_ >= 0 && !url.tls) return {};
  if (fd_ >= 0 && tls == nullptr) {
    close();
    return {.kind = ErrorKind::tls, .fatal = true, .message = "no TLS settings for " + url.authority()};
  }
  if (fd_ >= 0) return handshake(url, *tls, left_until(deadline));
  if (err == kInterrupted) return {.kind = ErrorKind::aborted, .message = "connect interrupted"};
  const ErrorKind kind = err == ECONNREFUSED ? ErrorKind::refused : ErrorKind::connect_failed;
  return errno_error(kind, "connect " + url.authority(), err);
}

// Returns 0 with fd_ open, an errno, or kInterrupted.
int Link::try_connect(const void* address, unsigned length, int family, milliseconds timeout, int receive_buffer) {
  fd_ = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return errno;
  // Before connect(), so that the window scale offered in the SYN fits it.
  if (receive_buffer > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  int err = ::connect(fd_, static_cast<const sockaddr*>(address), length) == 0 ? 0 : errno;
  const auto deadline = Clock::now() + timeout;
  while (err == EINPROGRESS) {
    bool readable = false;
    bool writable = false;
    const IoResult r = wait(true, left_until(deadline), readable, writable);
    if (r == IoResult::interrupted) err = kInterrupted;
    if (r == IoResult::timeout) err = ETIMEDOUT;
    if (r == IoResult::error) err = errno_;
    if (r != IoResult::ok) continue;
    socklen_t size = sizeof err;
    if (writable && ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &size) != 0) err = errno;
  }
  if (err != 0) close();
  return err;
}

ClientError Link::handshake(const Url& url, const transport::TlsContext& tls, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  tls_ = std::make_unique<transport::TlsStream>(tls, fd_, url.host);
  const std::string who = "TLS with " + url.authority() + ": ";
  for (;;) {
    const transport::TlsStatus status = tls_->valid() ? tls_->handshake() : transport::TlsStatus::failed;
    if (status == transport::TlsStatus::ok) return {};
    if (status == transport::TlsStatus::failed) {
      // A socket that failed is worth another try; a certificate that does
      // not verify or a protocol the server refuses is not.
      const ErrorKind kind = tls_->failed_on_socket() ? ErrorKind::io_error : ErrorKind::tls;
      const std::string message = who + tls_->error();
      close();
      return {.kind = kind, .message = message};
    }
    bool readable = false;
    bool writable = false;
    const IoResult r = wait(status == transport::TlsStatus::want_write, left_until(deadline), readable, writable);
    if (r == IoResult::ok || r == IoResult::woken) continue;
    close();
    if (r == IoResult::interrupted) return {.kind = ErrorKind::aborted, .message = "TLS handshake interrupted"};
    if (r == IoResult::timeout) return {.kind = ErrorKind::connect_failed, .message = who + "the handshake timed out"};
    return errno_error(ErrorKind::connect_failed, who + "the handshake failed", errno_);
  }
}

IoResult Link::on_wake() {
  wake_->drain();
  if (interrupt_ != nullptr && interrupt_->load(std::memory_order_acquire)) return IoResult::interrupted;
  return IoResult::woken;
}

IoResult Link::wait(bool want_write, milliseconds timeout, bool& readable, bool& writable) {
  want_write = want_write || holds_output();
  // Input OpenSSL has decrypted already makes the socket no more readable:
  // look, but do not wait.
  const bool buffered = tls_ != nullptr && tls_->has_buffered_input();
  // An interrupt flag with no Wake to be told by is looked at before each
  // wait and at least every kInterruptLookMs: a signal that came just
  // before the poll does not interrupt it.
  const bool looking = interrupt_ != nullptr && wake_ == nullptr;
  if (looking && interrupt_->load(std::memory_order_acquire)) return IoResult::interrupted;
  int wait_ms = buffered ? 0 : poll_timeout(timeout);
  const bool sliced = looking && (wait_ms < 0 || wait_ms > kInterruptLookMs);
  if (sliced) wait_ms = kInterruptLookMs;
  pollfd fds[2] = {{fd_, static_cast<short>(POLLIN | (want_write ? POLLOUT : 0)), 0},
                   {wake_ != nullptr ? wake_->fd() : -1, POLLIN, 0}};
  const int n = ::poll(fds, wake_ != nullptr ? 2 : 1, wait_ms);
  if (buffered && n >= 0 && (wake_ == nullptr || (fds[1].revents & POLLIN) == 0)) {
    readable = true;
    writable = (fds[0].revents & POLLOUT) != 0;
    return IoResult::ok;
  }
  // A signal: the caller looks around and waits again, unless it was the
  // one the interrupt flag was set for.
  if (n < 0 && errno == EINTR) {
    return interrupt_ != nullptr && interrupt_->load(std::memory_order_acquire) ? IoResult::interrupted
                                                                                  : IoResult::woken;
  }
  if (n < 0) {
    errno_ = errno;
    return IoResult::error;
  }
  if (n == 0) return sliced ? IoResult::woken : IoResult::timeout;
  if (wake_ != nullptr && (fds[1].revents & POLLIN) != 0) return on_wake();
  // An error or hang-up is reported by the recv() or send() that follows.
  const bool failed = (fds[0].revents & (POLLERR | POLLHUP)) != 0;
  readable = failed || (fds[0].revents & POLLIN) != 0;
  writable = failed || (fds[0].revents & POLLOUT) != 0;
  return IoResult::ok;
}

IoResult Link::receive(std::span<char> into, std::size_t& got) {
  got = 0;
  if (tls_ != nullptr) return tls_receive(into, got);
  const ssize_t n = ::recv(fd_, into.data(), into.size(), 0);
  if (n > 0) got = static_cast<std::size_t>(n);
  if (n >= 0) return n == 0 ? IoResult::eof : IoResult::ok;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return IoResult::ok;
  errno_ = errno;
  return IoResult::error;
}

IoResult Link::send_some(std::string_view bytes, std::size_t& sent) {
  sent = 0;
  if (tls_ != nullptr) return tls_send(bytes, sent);
  const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (n >= 0) {
    sent = static_cast<std::size_t>(n);
    return IoResult::ok;
  }
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return IoResult::ok;
  errno_ = errno;
  return IoResult::error;
}

IoResult Link::tls_receive(std::span<char> into, std::size_t& got) {
  switch (tls_->read(into, got)) {
    case transport::TlsStatus::ok:
    case transport::TlsStatus::want_read:
    case transport::TlsStatus::want_write:
    case transport::TlsStatus::read_again:  // a server's only: a client keeps OpenSSL's automatic retry
      return IoResult::ok;
    case transport::TlsStatus::eof:
      return IoResult::eof;
    case transport::TlsStatus::failed:
      break;
  }
  tls_failure_ = tls_->error();
  errno_ = EPROTO;
  return IoResult::error;
}

IoResult Link::tls_send(std::string_view bytes, std::size_t& sent) {
  struct iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  const long n = tls_->writev(&iov, bytes.empty() ? 0 : 1);
  if (n >= 0) sent = static_cast<std::size_t>(n);
  if (n >= 0 || n == -EAGAIN) return IoResult::ok;
  tls_failure_ = tls_->error();
  errno_ = static_cast<int>(-n);
  return IoResult::error;
}

IoResult Link::read(std::span<char> into, std::size_t& got, milliseconds timeout) {
  const auto deadline = deadline_after(timeout);
  got = 0;
  while (true) {
    bool readable = false;
    bool writable = false;
    const IoResult waited = wait(false, left_or_forever(deadline), readable, writable);
    if (waited == IoResult::woken && Clock::now() < deadline) continue;
    if (waited != IoResult::ok) return waited == IoResult::woken ? IoResult::timeout : waited;
    const IoResult r = receive(into, got);
    if (r != IoResult::ok || got > 0) return r;
  }
}

IoResult Link::write_all(std::string_view bytes, milliseconds timeout) {
  const auto deadline = deadline_after(timeout);
  while (!bytes.empty() || holds_output()) {
    std::size_t sent = 0;
    if (const IoResult r = send_some(bytes, sent); r != IoResult::ok) return r;
    bytes.remove_prefix(sent);
    if (bytes.empty() && !holds_output()) break;
    bool readable = false;
    bool writable = false;
    const IoResult waited = wait(true, left_or_forever(deadline), readable, writable);
    if (waited != IoResult::ok && waited != IoResult::woken) return waited;
    if (Clock::now() >= deadline) return IoResult::timeout;
  }
  return IoResult::ok;
}

}  // namespace sluice::client::detail
