// Owns: Writer, the one call through which an OutQueue hands bytes to the
// kernel, and SocketWriter, its implementation for a socket. Tests put a
// scripted Writer in its place to cut the stream wherever they like.
#pragma once

#include <cstdint>

#include "conn/gather_list.hpp"
#include "buf/frame.hpp"

namespace sluice::conn {

class Writer {
 public:
  virtual ~Writer() = default;
  // Writes from `count` iovecs (count <= kMaxGather), which are only read
  // during the call. Returns the bytes taken (possibly fewer than offered),
  // or -errno: -EAGAIN when the socket has no room.
  virtual long writev(const struct iovec* iov, int count) = 0;

  // Called after a writev with each frame whose first bytes it took, in
  // wire order, while the queue still holds the frame. A writer whose stack
  // goes on reading the bytes after writev returns (lwIP without
  // TCP_WRITE_FLAG_COPY reads them until the peer acknowledges them) keeps
  // a reference until then; a writer that copies ignores it.
  virtual void frame_started(const buf::FrameRef& frame) { (void)frame; }
};

// Writes to a socket it does not own (the caller closes `fd`).
class SocketWriter final : public Writer {
 public:
  explicit SocketWriter(int fd) : fd_(fd) {}

  [[nodiscard]] int fd() const { return fd_; }

  // One sendmsg(MSG_NOSIGNAL | MSG_DONTWAIT): a peer that has gone returns
  // -EPIPE instead of raising SIGPIPE, and a blocking fd never blocks.
  // Retried on EINTR. Returns bytes sent or -errno.
  long writev(const struct iovec* iov, int count) override;

  // sendmsg calls made, EINTR retries included: the figure that shows how
  // many frames one system call carried.
  [[nodiscard]] std::uint64_t calls() const { return calls_; }

 private:
  int fd_;
  std::uint64_t calls_ = 0;
};

}  // namespace sluice::conn
