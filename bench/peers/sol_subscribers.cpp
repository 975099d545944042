#include "sol_subscribers.hpp"

#include <sys/socket.h>

#include <cerrno>

#include "sol_tls.hpp"

namespace sluice::peers {

long SolSubscribers::send_some(const Subscriber& s, std::string_view bytes) {
  if (s.tls != nullptr) {
    const long n = sol_tls_write(s.tls, bytes);
    return n >= 0 ? n : errno == EAGAIN ? 0 : -1;
  }
  for (;;) {
    const ssize_t n = ::send(s.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    return errno == EAGAIN ? 0 : -1;
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

void SolSubscribers::send_round(std::string_view ws, std::string_view sse, std::vector<int>& failed) {
  for (Subscriber& s : list_) {
    if (!s.writable) continue;
    const std::string_view batch = s.websocket ? ws : sse;
    const long n = send_some(s, batch.substr(s.offset));
    if (n < 0) {
      failed.push_back(s.fd);
      continue;
    }
    s.offset += static_cast<std::size_t>(n);
    if (s.offset == batch.size()) {
      s.offset = 0;
    } else {
      set_writable(s, false);  // the socket is full: EPOLLOUT will say when it drained
    }
  }
}

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
