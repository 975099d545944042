#include "hub/publish_clock.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace sluice::hub {
namespace {

using Clock = PublishClock::Clock;
using namespace std::chrono_literals;

// Each reading lies between the steady clock's after it and the steady
// clock's before it, less a millisecond: a loose bound (4,096 counts take
// under 2 us at this box's rate) that a reading kept for good would break.
TEST(PublishClock, AReadingIsNeverLaterThanTheClockNorAMillisecondOlder) {
  PublishClock clock;
  for (int i = 0; i < 10000; ++i) {
    const Clock::time_point before = Clock::now();
    const Clock::time_point read = clock.now();
    const Clock::time_point after = Clock::now();
    ASSERT_LE(read, after) << "reading " << i;
    ASSERT_GE(read, before - 1ms) << "reading " << i;
  }
}

// A reading kept past its ticks is not given again: a millisecond on (far
// more than 4,096 counts), the clock is read anew.
TEST(PublishClock, AReadingOlderThanItsTicksIsTakenAgain) {
  PublishClock clock;
  const Clock::time_point first = clock.now();
  while (Clock::now() < first + 1ms) {
  }
  EXPECT_GE(clock.now(), first + 1ms);
}

#if defined(__x86_64__) || defined(__i386__)
// Within its ticks the reading is given again; with none allowed, each
// reading is the steady clock's own. Only where the counter is invariant:
// elsewhere the clock is read each time.
TEST(PublishClock, AReadingIsGivenAgainWithinItsTicksOnly) {
  if (!time_stamp_counter_invariant()) GTEST_SKIP() << "this processor's counter is not invariant";
  PublishClock held(std::numeric_limits<std::uint64_t>::max());
  const Clock::time_point first = held.now();
  while (Clock::now() == first) {
  }
  EXPECT_EQ(held.now(), first);

  PublishClock fresh(0);
  const Clock::time_point a = fresh.now();
  while (Clock::now() == a) {
  }
  EXPECT_GT(fresh.now(), a);
}
#endif

}  // namespace
}  // namespace sluice::hub
