// Owns: PublishGate, where a publisher that chose to wait for its topic's
// slowest fifo subscriber (sluice::server::Server::publish_waiting) sleeps,
// and how the loops wake it.
//
// A loop calls room_made() after each change that may give a waiting
// publisher room: a delivery (the loop is less far behind), a fifo
// subscriber back under its mark or gone. While nobody waits that costs one
// atomic read-modify-write of the topic's waiter count (as the held
// WebSocket publishers' exchange beside it does), no lock and no system
// call.
//
// No wake is lost. A waiter counts itself on the topic (`waiters`) before
// it first looks for room, and sleeps only until the gate's wake count has
// moved past the one it read before it looked (arm()), so a wake between
// its look and its sleep ends the sleep at once. A loop makes its change,
// then reads `waiters` with a read-modify-write; the waiter counts itself
// with one, then looks. The two are ordered in the count's modification
// order: if the loop's comes first, it released the change the waiter's
// look then sees; if the waiter's comes first, the loop reads it and wakes
// the waiter. (A fence and a plain load would do on the loop's side, but
// ThreadSanitizer does not follow fences.)
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
  void room_made(std::atomic<std::uint32_t>& waiters) {
    if (waiters.fetch_add(0, std::memory_order_acq_rel) != 0) wake();
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
    // since arm(), the gate closed, or `deadline`. False at the deadline.
    [[nodiscard]] bool sleep_until(Clock::time_point deadline);

   private:
    PublishGate& gate_;
    std::atomic<std::uint32_t>& waiters_;
    std::uint64_t seen_ = 0;
  };

  // The server stops: every waiter wakes, and from now on none waits
  // (closed()). From a loop's thread as it stops, never from a signal
  // handler (a lock is taken).
  void close();
  [[nodiscard]] bool closed() const { return closed_.load(std::memory_order_acquire); }

 private:
  void wake();

  std::mutex mutex_;
  std::condition_variable woken_;
  std::uint64_t wakes_ = 0;  // under mutex_
  std::atomic<bool> closed_{false};
};

}  // namespace sluice::hub
