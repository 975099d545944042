// Owns: PublishClock, the time a publisher stamps its events with (the age
// the flush's event-age histogram and the admin API report).
//
// A publisher that publishes event after event reads the steady clock once
// per event, about 25 ns in a virtual machine: a tenth of what one event
// costs it. On x86 the processor's time-stamp counter reads in about 10 ns,
// so a reading of the steady clock is kept and given again while fewer
// than kReuseTicks counts have passed since it was taken: about 8 us at
// 512 MHz, 1.6 us at 2.6 GHz. A stamp is then at most that much older than
// the publish, never newer: an age may land one event-age bucket higher
// (the smallest is 10 us), never lower. That holds only where the counter
// is invariant (it counts at one rate through power states, which the
// processor reports; otherwise an idle thread's counter could stand still
// for seconds) and the processors' counters are in step, as Linux requires
// to use it as its clock: a thread moved to one whose counter runs behind
// sees a wrapped (huge) difference and reads the clock, and any skew left
// adds to the age. Without an invariant counter, or off x86, it is the
// steady clock, read each time.
//
// Read by one thread at a time: a loop's, or a Publisher's owner's
// (FrameScratch holds one; the scratches the book lends never read
// theirs: a publish by name and a batch read the steady clock). A topic
// keeps its events' stamps in order whoever stamped them
// (TopicBook::push_locked).
#pragma once

#include <chrono>
#include <cstdint>

namespace sluice::hub {

// Whether this processor's time-stamp counter is invariant; false off x86.
// Asked of the processor once per process.
[[nodiscard]] bool time_stamp_counter_invariant();

class PublishClock {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint64_t kReuseTicks = 4096;

  // `reuse_ticks` 0: the clock is read each time.
  explicit PublishClock(std::uint64_t reuse_ticks = kReuseTicks)
      : reuse_ticks_(time_stamp_counter_invariant() ? reuse_ticks : 0) {}

  Clock::time_point now() {
#if defined(__x86_64__) || defined(__i386__)
    if (reuse_ticks_ == 0) return Clock::now();
    const std::uint64_t ticks = __builtin_ia32_rdtsc();
    if (ticks - read_at_ < reuse_ticks_ && read_ != Clock::time_point{}) return read_;
    read_at_ = ticks;
    read_ = Clock::now();
    return read_;
#else
    return Clock::now();
#endif
  }

 private:
  std::uint64_t reuse_ticks_;
  std::uint64_t read_at_ = 0;
  Clock::time_point read_{};
};

}  // namespace sluice::hub
