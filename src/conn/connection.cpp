#include "conn/connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

namespace sluice::conn {

namespace {
constexpr std::size_t kReadChunk = 16384;
}

Connection::Connection(io::Loop& loop, int fd, const ConnectionLimits& limits)
    : loop_(loop), fd_(fd), limits_(limits), out_(limits.send), writer_(fd), last_activity_(loop.now()) {}

Connection::~Connection() {
  loop_.forget(this);
  if (fd_ >= 0) {
    loop_.unwatch(fd_);
    ::close(fd_);
  }
}

int Connection::start() { return loop_.watch(fd_, io::kReadable, this); }

EnqueueStatus Connection::send_data(buf::FrameRef frame) {
  if (closed()) return EnqueueStatus::full;
  const EnqueueStatus status = out_.push_data(std::move(frame));
  if (status == EnqueueStatus::ok) want_flush();
  return status;
}

EnqueueStatus Connection::send_control(buf::FrameRef frame) {
  if (closed()) return EnqueueStatus::full;
  const EnqueueStatus status = out_.push_control(std::move(frame));
  if (status == EnqueueStatus::ok) want_flush();
  return status;
}

void Connection::send_last(buf::FrameRef frame) {
  if (closed()) return;
  out_.push_last(std::move(frame));
  want_flush();
}

void Connection::close_after_flush(CloseReason reason) {
  if (closed() || closing_) return;
  closing_ = true;
  close_reason_ = reason;
  want_flush();
}

void Connection::close_now(CloseReason reason) {
  if (closed()) return;
  loop_.forget(this);
  loop_.unwatch(fd_);
  ::close(fd_);
  fd_ = -1;
  out_.clear();
  on_closed(reason);
}

void Connection::on_ready(std::uint32_t events) {
  if (closed()) return;
  if (events & io::kError) return close_now(CloseReason::io_error);
  if (events & (io::kReadable | io::kHangup)) read_available();
  if (!closed() && (events & io::kWritable)) want_flush();
}

void Connection::read_available() {
  // Edge-triggered: read until EAGAIN, unless the input budget is full (the
  // protocol then has a whole request or message it must act on first) or
  // this turn's bytes are spent; then the deferred work reads on, as no new
  // event will come for the bytes already there. Without turns a client
  // that keeps its socket full (a publisher pipelining POSTs) held the loop
  // until it paused, every other socket and flush waiting behind it.
  std::array<char, kReadChunk> chunk;
  for (std::size_t turn = 0; !closed();) {
    if (!lingering_ && (closing_ || input_.size() >= limits_.receive_budget)) return;
    if (turn >= limits_.receive_turn) {
      read_more_ = true;
      loop_.defer(this);
      return;
    }
    const std::size_t room = lingering_ ? chunk.size() : std::min(chunk.size(), limits_.receive_budget - input_.size());
    const ssize_t n = ::recv(fd_, chunk.data(), room, 0);
    if (n > 0) {
      turn += static_cast<std::size_t>(n);
      last_activity_ = loop_.now();
      if (lingering_) continue;
      input_.append(chunk.data(), static_cast<std::size_t>(n));
      on_input(input_);
      continue;
    }
    if (n == 0) return lingering_ ? close_now(close_reason_) : on_peer_eof();
    if (errno == EINTR) continue;
    if (errno != EAGAIN) close_now(CloseReason::io_error);
    return;
  }
}

void Connection::run_deferred() {
  flush();
  if (read_more_ && !closed()) {
    read_more_ = false;
    read_available();
  }
}

void Connection::resume_input() {
  if (closed() || closing_) return;
  if (!input_.empty()) on_input(input_);
  // Edge-triggered: bytes that arrived while input was paused raised no new
  // event, so read them now.
  read_available();
}

void Connection::flush() {
  if (closed()) return;
  before_flush();
  const FlushResult result = out_.flush(writer_);
  if (result.bytes > 0) last_activity_ = loop_.now();
  switch (result.status) {
    case FlushStatus::error:
      return close_now(CloseReason::io_error);
    case FlushStatus::blocked:
      return set_write_interest(true);
    case FlushStatus::drained:
      set_write_interest(false);
      if (closing_ && !lingering_) return start_linger();
      if (!closing_) on_drained();
      return;
  }
}

void Connection::start_linger() {
  lingering_ = true;
  last_activity_ = loop_.now();
  if (::shutdown(fd_, SHUT_WR) != 0) return close_now(close_reason_);
  read_available();
}

void Connection::set_write_interest(bool on) {
  // EPOLLOUT is armed only after a short write, and disarmed once drained,
  // so an idle writable socket never wakes the loop.
  if (on == write_armed_) return;
  write_armed_ = on;
  loop_.rewatch(fd_, on ? io::kReadable | io::kWritable : io::kReadable, this);
}

}  // namespace sluice::conn
