// Owns: PublishGate, where a publisher that chose to wait for its topic's
// slowest fifo subscriber (sluice::server::Server::publish_waiting) sleeps,
// and how the loops wake it.
//
// A loop calls room_made() after each change that may give a waiting
// publisher room: a delivery (the loop is less far behind), a fifo
// subscriber back under its mark or gone. While nobody waits that costs a
// fence and one relaxed load, no lock and no system call.
//
// No wake is lost. A waiter counts itself on the topic (`waiters`) before
// it first looks for room, and sleeps only until the gate's wake count has
// moved past the one it read before it looked (arm()), so a wake between
// its look and its sleep ends the sleep at once. A loop makes its change,
// then a sequentially consistent fence, then reads `waiters`; the waiter
// counts itself, then a fence, then looks: of two fenced sides one sees
// the other, so either the loop sees the waiter and wakes it, or the
// waiter's look sees the change.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sluice::hub {

class PublishGate {
 public:
  using Clock = std::chrono::steady_clock;

  // A loop, after a change that may give room on a topic whose waiter
  // count is `waiters`.
  void room_made(const std::atomic<std::uint32_t>& waiters) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (waiters.load(std::memory_order_relaxed) != 0) wake();
  }

  // One publisher's wait on one topic, from before its first look for room
  // to after its last: counted in `waiters` while it lives.
  class Wait {
   public:
    Wait(PublishGate& gate, std::atomic<std::uint32_t>& waiters);
    ~Wait();
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;

    // Before each look for room.
    void arm();
    // After a look that found none: sleeps until a loop has made room
    // since arm(), or until `deadline`. False at the deadline.
    [[nodiscard]] bool sleep_until(Clock::time_point deadline);

   private:
    PublishGate& gate_;
    std::atomic<std::uint32_t>& waiters_;
    std::uint64_t seen_ = 0;
  };

 private:
  void wake();

  std::mutex mutex_;
  std::condition_variable woken_;
  std::uint64_t wakes_ = 0;  // under mutex_
};

}  // namespace sluice::hub
