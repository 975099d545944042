// Owns: ReloadTrigger, how a signal handler asks loop 0 to reload without
// doing any of the work itself: fire() adds to an eventfd (one write(2),
// async-signal-safe), loop 0 watches it, and its readiness runs the reload
// on the loop's thread. Signals that arrive before the loop has run are
// folded into one reload, as are several that arrive within one tick.
#pragma once

#include <cstdint>
#include <functional>

#include "io/loop.hpp"

namespace sluice::server {

class ReloadTrigger final : public io::Handler {
 public:
  explicit ReloadTrigger(std::function<void()> on_fire);
  ~ReloadTrigger();
  ReloadTrigger(const ReloadTrigger&) = delete;
  ReloadTrigger& operator=(const ReloadTrigger&) = delete;

  // Async-signal-safe; any thread.
  void fire();
  // Watches the eventfd on `loop` (its thread) until unwatch().
  int watch(io::Loop& loop);
  void unwatch();

 private:
  void on_ready(std::uint32_t events) override;

  std::function<void()> on_fire_;
  int fd_ = -1;
  io::Loop* loop_ = nullptr;
};

}  // namespace sluice::server
