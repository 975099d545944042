// Owns: SolUring, the speed-of-light server's batched sends (--uring): a
// round's sends to all subscribers laid out as IORING_OP_SEND entries in
// one io_uring submission queue and handed to the kernel in one
// io_uring_submit_and_wait, in place of one send() system call each.
//
// Each entry carries MSG_DONTWAIT, so the kernel tries it once at once and
// answers as send() does (bytes taken, possibly fewer than asked, or
// -EAGAIN for a full socket) instead of parking it until the socket drains:
// a full subscriber waits for EPOLLOUT as in the plain rounds, and the
// whole round is complete when the call returns. A round larger than the
// ring goes in ring-sized parts, one submission each.
#pragma once

#include <liburing.h>

#include <cstddef>
#include <span>
#include <string>

#include "sol_send.hpp"

namespace sluice::peers {

class SolUring {
 public:
  // A ring of `entries` submission slots (rounded up to a power of two).
  explicit SolUring(unsigned entries);
  ~SolUring();
  SolUring(const SolUring&) = delete;
  SolUring& operator=(const SolUring&) = delete;

  // Empty when the ring is up; else why it is not (the kernel's answer).
  [[nodiscard]] const std::string& error() const { return error_; }

  // Sends every one of `sends` and fills in its result.
  void send_all(std::span<SolSend> sends);

  [[nodiscard]] std::size_t submissions() const { return submissions_; }

 private:
  io_uring ring_{};
  std::string error_;
  std::size_t submissions_ = 0;  // io_uring_submit_and_wait calls made
};

}  // namespace sluice::peers
