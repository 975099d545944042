#include "hub/publish_gate.hpp"

namespace sluice::hub {

PublishGate::Wait::Wait(PublishGate& gate, std::atomic<std::uint32_t>& waiters) : gate_(gate), waiters_(waiters) {
  waiters_.fetch_add(1, std::memory_order_acq_rel);
}

PublishGate::Wait::~Wait() { waiters_.fetch_sub(1, std::memory_order_relaxed); }

void PublishGate::Wait::arm() {
  const std::lock_guard lock(gate_.mutex_);
  seen_ = gate_.wakes_;
}

bool PublishGate::Wait::sleep_until(Clock::time_point deadline) {
  std::unique_lock lock(gate_.mutex_);
  return gate_.woken_.wait_until(lock, deadline, [&] { return gate_.wakes_ != seen_ || gate_.closed(); });
}

void PublishGate::close() {
  closed_.store(true, std::memory_order_release);
  wake();
}

// Every waiter of every topic wakes and looks again: waiters are few (an
// application's publisher threads), and a look is one topic lock.
void PublishGate::wake() {
  {
    const std::lock_guard lock(mutex_);
    ++wakes_;
  }
  woken_.notify_all();
}

}  // namespace sluice::hub
