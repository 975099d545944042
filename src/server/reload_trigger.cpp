#include "server/reload_trigger.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace sluice::server {

ReloadTrigger::ReloadTrigger(std::function<void()> on_fire)
    : on_fire_(std::move(on_fire)), fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

ReloadTrigger::~ReloadTrigger() {
  unwatch();
  if (fd_ >= 0) ::close(fd_);
}

void ReloadTrigger::fire() {
  const std::uint64_t one = 1;
  // Saves errno: a signal handler must leave the interrupted code's alone.
  const int saved = errno;
  [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
  errno = saved;
}

int ReloadTrigger::watch(io::Loop& loop) {
  if (fd_ < 0) return -EBADF;
  loop_ = &loop;
  return loop.watch(fd_, io::kReadable, this);
}

void ReloadTrigger::unwatch() {
  if (loop_ == nullptr) return;
  loop_->unwatch(fd_);
  loop_ = nullptr;
}

void ReloadTrigger::on_ready(std::uint32_t) {
  std::uint64_t count = 0;
  // One read takes the whole count: any number of requests is one reload.
  if (::read(fd_, &count, sizeof count) == sizeof count && count > 0) on_fire_();
}

}  // namespace sluice::server
