#include <sys/epoll.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "io/backend.hpp"

namespace sluice::io {

namespace {

std::uint32_t to_epoll(std::uint32_t interest) {
  std::uint32_t bits = EPOLLET | EPOLLRDHUP;
  if (interest & kReadable) bits |= EPOLLIN;
  if (interest & kWritable) bits |= EPOLLOUT;
  return bits;
}

std::uint32_t from_epoll(std::uint32_t bits) {
  std::uint32_t ready = 0;
  if (bits & EPOLLIN) ready |= kReadable;
  if (bits & EPOLLOUT) ready |= kWritable;
  if (bits & (EPOLLHUP | EPOLLRDHUP)) ready |= kHangup;
  if (bits & EPOLLERR) ready |= kError;
  return ready;
}

class EpollBackend final : public Backend {
 public:
  EpollBackend() : epfd_(::epoll_create1(EPOLL_CLOEXEC)) {}
  ~EpollBackend() override {
    if (epfd_ >= 0) ::close(epfd_);
  }
  EpollBackend(const EpollBackend&) = delete;
  EpollBackend& operator=(const EpollBackend&) = delete;

  int add(int fd, std::uint32_t interest, void* tag) override { return control(EPOLL_CTL_ADD, fd, interest, tag); }
  int modify(int fd, std::uint32_t interest, void* tag) override {
    return control(EPOLL_CTL_MOD, fd, interest, tag);
  }
  int remove(int fd) override { return control(EPOLL_CTL_DEL, fd, 0, nullptr); }

  int wait(std::span<ReadyEvent> out, int timeout_ms) override {
    std::array<epoll_event, 256> events;
    const int max = static_cast<int>(std::min(out.size(), events.size()));
    const int n = ::epoll_wait(epfd_, events.data(), max, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -errno;
    for (int i = 0; i < n; ++i) out[i] = ReadyEvent{events[i].data.ptr, from_epoll(events[i].events)};
    return n;
  }

  bool edge_triggered() const override { return true; }

 private:
  int control(int op, int fd, std::uint32_t interest, void* tag) {
    epoll_event ev{};
    ev.events = to_epoll(interest);
    ev.data.ptr = tag;
    return ::epoll_ctl(epfd_, op, fd, &ev) == 0 ? 0 : -errno;
  }

  int epfd_;
};

}  // namespace

std::unique_ptr<Backend> make_epoll_backend() { return std::make_unique<EpollBackend>(); }

}  // namespace sluice::io
