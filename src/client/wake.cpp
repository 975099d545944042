#include "wake.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace sluice::client::detail {

Wake::Wake() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

Wake::~Wake() {
  if (fd_ >= 0) ::close(fd_);
}

void Wake::signal() {
  const std::uint64_t one = 1;
  // A full counter (2^64-2 signals unread) still leaves the fd readable, so
  // a failed write loses nothing.
  [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
}

void Wake::drain() {
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t n = ::read(fd_, &count, sizeof count);
}

}  // namespace sluice::client::detail
