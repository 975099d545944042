#include "net_namespace.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace sluice::bench {

namespace {
// The calling thread's own namespace (not the process leader's, which
// /proc/self would give).
int open_own_namespace() { return ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC); }
}  // namespace

NetNamespace::~NetNamespace() {
  if (fd_ >= 0) ::close(fd_);
}

NetNamespace& NetNamespace::operator=(NetNamespace&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

NetNamespace NetNamespace::make(std::string& error) {
  int fd = -1;
  // unshare() moves its thread for good: a thread made for it, which ends
  // right after, leaves the caller's threads where they were.
  std::thread([&] {
    if (::unshare(CLONE_NEWNET) != 0) {
      error = std::string("cannot make a network namespace: ") + std::strerror(errno) + " (needs CAP_SYS_ADMIN)";
      return;
    }
    fd = open_own_namespace();
    if (fd < 0) error = std::string("cannot open the new network namespace: ") + std::strerror(errno);
  }).join();
  return NetNamespace(fd);
}

InNamespace::InNamespace(const NetNamespace* ns) {
  if (ns == nullptr || !ns->valid()) return;
  previous_ = open_own_namespace();
  if (previous_ < 0) return;
  entered_ = ::setns(ns->fd(), CLONE_NEWNET) == 0;
}

void InNamespace::leave() {
  // Going back cannot fail while the process may setns at all (it just did,
  // and the namespace it left is held open by previous_).
  if (entered_) static_cast<void>(::setns(previous_, CLONE_NEWNET));
  entered_ = false;
  if (previous_ >= 0) ::close(previous_);
  previous_ = -1;
}

}  // namespace sluice::bench
