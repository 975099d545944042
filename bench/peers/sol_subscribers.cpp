#include "sol_subscribers.hpp"

#include <sys/socket.h>

#include <cerrno>

#include "sol_tls.hpp"
#ifdef SOL_HAVE_URING
#include "sol_uring.hpp"
#endif

namespace sluice::peers {

namespace {
// send()'s answer as a round takes it: bytes, 0 for "wait for the socket",
// -1 failed. ENOBUFS comes only with MSG_ZEROCOPY: the socket's room for
// the kernel's notifications is used up until they are read.
long round_answer(long n, int error) {
  if (n >= 0) return n;
  return error == EAGAIN || error == ENOBUFS ? 0 : -1;
}
}  // namespace

long SolSubscribers::send_some(const Subscriber& s, std::string_view bytes, int flags) {
  if (s.tls != nullptr) {
    const long n = sol_tls_write(s.tls, bytes);
    return n >= 0 ? n : errno == EAGAIN ? 0 : -1;
  }
  for (;;) {
    const ssize_t n = ::send(s.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT | flags);
    if (n < 0 && errno == EINTR) continue;
    return round_answer(n, errno);
  }
}

void SolSubscribers::set_writable(Subscriber& s, bool writable) {
  if (s.writable == writable) return;
  s.writable = writable;
  writable ? ++writable_ : --writable_;
}

bool SolSubscribers::add(int fd, bool websocket, std::string first, SSL* tls) {
  if (fd < 0) return false;
  if (slot_of_fd_.size() <= static_cast<std::size_t>(fd)) slot_of_fd_.resize(static_cast<std::size_t>(fd) + 1, 0);
  list_.push_back(
      {.fd = fd, .tls = tls, .websocket = websocket, .writable = true, .offset = 0, .owed = std::move(first)});
  ++writable_;
  slot_of_fd_[static_cast<std::size_t>(fd)] = list_.size();
  if (flush_owed(list_.back())) return true;
  remove(fd);
  return false;
}

bool SolSubscribers::contains(int fd) const {
  return fd >= 0 && static_cast<std::size_t>(fd) < slot_of_fd_.size() && slot_of_fd_[static_cast<std::size_t>(fd)] != 0;
}

void SolSubscribers::remove(int fd) {
  if (!contains(fd)) return;
  const std::size_t at = slot_of_fd_[static_cast<std::size_t>(fd)] - 1;
  if (list_[at].writable) --writable_;
  slot_of_fd_[static_cast<std::size_t>(fd)] = 0;
  if (at + 1 != list_.size()) {
    list_[at] = std::move(list_.back());
    slot_of_fd_[static_cast<std::size_t>(list_[at].fd)] = at + 1;
  }
  list_.pop_back();
}

// Sends the owed bytes; the subscriber stays writable only if all went.
bool SolSubscribers::flush_owed(Subscriber& s) {
  if (s.owed.empty()) return true;
  const long n = send_some(s, s.owed);
  if (n < 0) return false;
  s.owed.erase(0, static_cast<std::size_t>(n));
  set_writable(s, s.owed.empty());
  return true;
}

bool SolSubscribers::on_writable(int fd) {
  if (!contains(fd)) return true;
  Subscriber& s = list_[slot_of_fd_[static_cast<std::size_t>(fd)] - 1];
  set_writable(s, true);
  return flush_owed(s);
}

void SolSubscribers::use_round_path(SolUring* uring, bool zerocopy) {
  uring_ = uring;
  round_flags_ = zerocopy ? MSG_ZEROCOPY : 0;
}

void SolSubscribers::take_round_result(Subscriber& s, std::string_view batch, long n, std::vector<int>& failed) {
  if (n < 0) {
    failed.push_back(s.fd);
    return;
  }
  if (n > 0) ++round_sends_;
  s.offset += static_cast<std::size_t>(n);
  if (s.offset == batch.size()) {
    s.offset = 0;
  } else {
    set_writable(s, false);  // the socket is full: EPOLLOUT will say when it drained
  }
}

void SolSubscribers::send_round(std::string_view ws, std::string_view sse, std::vector<int>& failed) {
  if (uring_ != nullptr) return send_round_batched(ws, sse, failed);
  for (Subscriber& s : list_) {
    if (!s.writable) continue;
    const std::string_view batch = s.websocket ? ws : sse;
    take_round_result(s, batch, send_some(s, batch.substr(s.offset), round_flags_), failed);
  }
}

#ifdef SOL_HAVE_URING
// The same round, its sends laid out first and made by one submission.
void SolSubscribers::send_round_batched(std::string_view ws, std::string_view sse, std::vector<int>& failed) {
  sends_.clear();
  sender_.clear();
  for (std::size_t i = 0; i < list_.size(); ++i) {
    const Subscriber& s = list_[i];
    if (!s.writable) continue;
    const std::string_view rest = (s.websocket ? ws : sse).substr(s.offset);
    sends_.push_back({.fd = s.fd, .data = rest.data(), .size = rest.size(),
                      .flags = MSG_NOSIGNAL | MSG_DONTWAIT | round_flags_});
    sender_.push_back(i);
  }
  uring_->send_all(sends_);
  for (std::size_t k = 0; k < sends_.size(); ++k) {
    Subscriber& s = list_[sender_[k]];
    const long result = sends_[k].result;
    take_round_result(s, s.websocket ? ws : sse, round_answer(result < 0 ? -1 : result, static_cast<int>(-result)),
                      failed);
  }
}
#else
void SolSubscribers::send_round_batched(std::string_view, std::string_view, std::vector<int>&) {}
#endif

void SolSubscribers::broadcast(std::string_view ws, std::string_view sse, std::vector<int>& failed) {
  for (Subscriber& s : list_) {
    const std::string_view frame = s.websocket ? ws : sse;
    if (!s.writable) {
      s.owed.append(frame);
      if (s.owed.size() > kMaxOwed) failed.push_back(s.fd);
      continue;
    }
    const long n = send_some(s, frame);
    if (n < 0) {
      failed.push_back(s.fd);
    } else if (static_cast<std::size_t>(n) < frame.size()) {
      s.owed.assign(frame.substr(static_cast<std::size_t>(n)));
      set_writable(s, false);
    }
  }
}

}  // namespace sluice::peers
