// Owns: Wake, the eventfd through which other threads interrupt the
// client's thread while it waits in poll(): to stop it, to make it
// reconnect, or to hand it requests to send.
#pragma once

namespace sluice::client::detail {

class Wake {
 public:
  Wake();
  ~Wake();
  Wake(const Wake&) = delete;
  Wake& operator=(const Wake&) = delete;

  // False when no eventfd could be had (the client then refuses to start).
  [[nodiscard]] bool valid() const { return fd_ >= 0; }
  [[nodiscard]] int fd() const { return fd_; }
  // Safe from any thread; wakes the poll() that watches fd().
  void signal();
  // Called by the waiting thread once poll() reported fd() readable.
  void drain();

 private:
  int fd_ = -1;
};

}  // namespace sluice::client::detail
