// Worker's part of a reload: a new config handed over from any thread and
// taken on the loop's own thread, between two events, so that no session
// reads a limit while it changes and the event path takes no lock.
#include <algorithm>
#include <utility>

#include "server/worker.hpp"

namespace sluice::server {

namespace {

// How often timeouts are checked: often enough to honour the shortest one
// within a fraction of itself, never more than every 10 ms.
std::chrono::milliseconds sweep_period(const Config& c) {
  std::int64_t shortest = std::min(
      {c.handshake_timeout_ms, c.idle_timeout_ms, c.linger_timeout_ms, c.ws.ping_interval_ms, c.ws.pong_timeout_ms,
       c.tls.handshake_timeout_ms});
  // A client held for its topic's place in Redis is answered by the sweep.
  if (c.broker.enabled()) shortest = std::min(shortest, c.broker.placement_timeout_ms);
  return std::chrono::milliseconds(std::clamp<std::int64_t>(shortest / 4, 10, 1000));
}

}  // namespace

void Worker::arm_sweep() {
  if (sweep_timer_ != 0) loop_.cancel(sweep_timer_);
  sweep_period_ = sweep_period(services_.config());
  sweep_timer_ = loop_.every(sweep_period_, [this] { sweep(); });
}

void Worker::reconfigure(std::shared_ptr<const Config> next, std::function<void()> taken) {
  std::function<void()> replaced;
  {
    const std::lock_guard lock(config_mutex_);
    replaced = std::exchange(next_config_.taken, std::move(taken));
    next_config_.config = std::move(next);
  }
  config_waiting_.store(true, std::memory_order_release);
  signal();
  if (replaced) replaced();
}

void Worker::take_config() {
  ConfigHandover handover;
  {
    const std::lock_guard lock(config_mutex_);
    handover = std::exchange(next_config_, {});
  }
  if (!handover.config) return;
  const std::chrono::milliseconds before = sweep_period(services_.config());
  services_.reconfigure(std::move(handover.config));
  if (sweep_period(services_.config()) != before) arm_sweep();
  if (handover.taken) handover.taken();
}

}  // namespace sluice::server
