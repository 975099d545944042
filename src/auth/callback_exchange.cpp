#include "auth/callback_exchange.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "auth/callback_request.hpp"
#include "client/response_head.hpp"

namespace sluice::auth {

namespace {

Decision unreachable(int error) {
  return Decision::callback_failed(std::string("cannot reach the authorization callback: ") + std::strerror(error), 1);
}

}  // namespace

CallbackExchange::CallbackExchange(io::Loop& loop, ExchangeOwner& owner, std::uint64_t ticket, std::string request,
                                   std::size_t max_head)
    : loop_(loop), owner_(owner), ticket_(ticket), request_(std::move(request)), max_head_(max_head) {}

CallbackExchange::~CallbackExchange() { close(); }

int CallbackExchange::start(const sockaddr* address, socklen_t size) {
  fd_ = ::socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return -errno;
  if (::connect(fd_, address, size) != 0 && errno != EINPROGRESS) {
    const int error = errno;
    close();
    return -error;
  }
  // Writable once connected (or failed); the request goes out from there.
  if (const int rc = loop_.watch(fd_, io::kReadable | io::kWritable, this); rc != 0) {
    close();
    return rc;
  }
  return 0;
}

void CallbackExchange::close() {
  if (fd_ < 0) return;
  (void)loop_.unwatch(fd_);
  ::close(fd_);
  fd_ = -1;
}

void CallbackExchange::on_ready(std::uint32_t events) {
  if (step_ == Step::connecting && (events & (io::kWritable | io::kError | io::kHangup)) != 0) on_connected();
  if (step_ == Step::writing) write_some();
  if (step_ == Step::reading && (events & (io::kReadable | io::kHangup | io::kError)) != 0) read_some();
}

void CallbackExchange::on_connected() {
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
  if (error != 0) return finish(unreachable(error));
  step_ = Step::writing;
}

void CallbackExchange::write_some() {
  while (written_ < request_.size()) {
    const ssize_t n = ::send(fd_, request_.data() + written_, request_.size() - written_, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;  // the next writable event resumes
    if (n < 0) return finish(unreachable(errno));
    written_ += static_cast<std::size_t>(n);
  }
  step_ = Step::reading;
  // Nothing more to write: a level-triggered backend must stop reporting it.
  if (const int rc = loop_.rewatch(fd_, io::kReadable, this); rc != 0) finish(unreachable(-rc));
}

void CallbackExchange::read_some() {
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return check_head(false);
    if (n < 0) return finish(unreachable(errno));
    if (n == 0) return check_head(true);
    // Only the head matters: one byte past max_head is enough to call it too long.
    const std::size_t room = reply_.size() <= max_head_ ? max_head_ + 1 - reply_.size() : 0;
    reply_.append(chunk, std::min(static_cast<std::size_t>(n), room));
    check_head(false);
    if (step_ == Step::done) return;
  }
}

void CallbackExchange::check_head(bool at_eof) {
  client::detail::ResponseHead head;
  switch (client::detail::parse_response_head(reply_, max_head_, head)) {
    case client::detail::HeadStatus::complete: return finish(decision_for_status(head.status, head.retry_after));
    case client::detail::HeadStatus::need_more:
      if (at_eof) finish(Decision::callback_failed("the authorization callback closed without answering", 1));
      return;
    case client::detail::HeadStatus::not_http:
      return finish(Decision::callback_failed("the authorization callback's reply is not HTTP", 1));
    case client::detail::HeadStatus::too_long:
    case client::detail::HeadStatus::malformed:
      return finish(Decision::callback_failed("the authorization callback's reply head is malformed or too long", 1));
  }
}

void CallbackExchange::finish(Decision decision) {
  if (step_ == Step::done) return;
  step_ = Step::done;
  close();
  owner_.exchange_done(*this, std::move(decision));
}

}  // namespace sluice::auth
