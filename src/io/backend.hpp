// Owns: Backend, the small interface between the event loop and the kernel's
// readiness API. One file per backend (backend_epoll.cpp, backend_poll.cpp),
// as in Redis' ae.c; the loop knows nothing of either.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace sluice::io {

// Readiness bits, both as interest (what to watch) and as what happened.
enum Ready : std::uint32_t {
  kReadable = 1u << 0,
  kWritable = 1u << 1,
  kHangup = 1u << 2,  // reported only
  kError = 1u << 3,   // reported only
};

struct ReadyEvent {
  void* tag;
  std::uint32_t events;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Each returns 0 or -errno. `tag` comes back with every event for `fd`.
  virtual int add(int fd, std::uint32_t interest, void* tag) = 0;
  virtual int modify(int fd, std::uint32_t interest, void* tag) = 0;
  virtual int remove(int fd) = 0;
  // Waits at most `timeout_ms` (-1: no limit) and fills `out`. Returns the
  // number of events, 0 on timeout or EINTR, or -errno.
  virtual int wait(std::span<ReadyEvent> out, int timeout_ms) = 0;
  // True when readiness is reported once per change (epoll's EPOLLET), so
  // a handler must read and write until EAGAIN.
  [[nodiscard]] virtual bool edge_triggered() const = 0;
};

// Edge-triggered epoll: the default on Linux.
[[nodiscard]] std::unique_ptr<Backend> make_epoll_backend();
// Level-triggered poll(2): for portability and as a cross-check in tests.
[[nodiscard]] std::unique_ptr<Backend> make_poll_backend();

}  // namespace sluice::io
