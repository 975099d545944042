// round_trip_credit(): which of the bytes on their way to a reader count
// as read, from the kernel's figures for the path alone.
#include "conn/round_trip_credit.hpp"

#include <gtest/gtest.h>

namespace sluice::conn {
namespace {

// 3 Mbit/s is 375,000 bytes/s; a 40 ms round trip carries 15,000 of them.
constexpr PathFacts kLink{.unacknowledged = 40'000, .delivery_rate = 375'000, .min_rtt_us = 40'000,
                          .rate_app_limited = false};

TEST(RoundTripCredit, IsOneRoundTripAtTheDeliveryRateWhenMoreIsOnThePath) {
  EXPECT_EQ(round_trip_credit(kLink), 15'000u);
}

TEST(RoundTripCredit, IsAllThatIsUnacknowledgedWhenLessIsOnThePath) {
  PathFacts path = kLink;
  path.unacknowledged = 9'000;
  EXPECT_EQ(round_trip_credit(path), 9'000u);
  path.unacknowledged = 0;
  EXPECT_EQ(round_trip_credit(path), 0u);
}

TEST(RoundTripCredit, IsNothingWhenTheRateWasSetBySluiceNotByThePath) {
  PathFacts path = kLink;
  path.rate_app_limited = true;
  EXPECT_EQ(round_trip_credit(path), 0u);
}

TEST(RoundTripCredit, IsNothingWithoutARateOrARoundTrip) {
  PathFacts path = kLink;
  path.delivery_rate = 0;
  EXPECT_EQ(round_trip_credit(path), 0u);
  path = kLink;
  path.min_rtt_us = 0;
  EXPECT_EQ(round_trip_credit(path), 0u);
  EXPECT_EQ(round_trip_credit(PathFacts{}), 0u);
}

// The kernel's minimum round trip before its first sample is the largest
// value there is: unknown, not a round trip of 71 minutes.
TEST(RoundTripCredit, IsNothingBeforeTheKernelMeasuredARoundTrip) {
  PathFacts path = kLink;
  path.min_rtt_us = UINT32_MAX;
  EXPECT_EQ(round_trip_credit(path), 0u);
}

TEST(RoundTripCredit, IsNextToNothingOverLoopback) {
  // 4 GB/s and 20 us: 80 KB a round trip, but loopback acknowledges at
  // once, so little is ever unacknowledged when the gate looks.
  const PathFacts loopback{.unacknowledged = 0, .delivery_rate = 4'000'000'000, .min_rtt_us = 20,
                           .rate_app_limited = false};
  EXPECT_EQ(round_trip_credit(loopback), 0u);
}

TEST(RoundTripCredit, DoesNotOverflowAtTheLargestFigures) {
  const PathFacts huge{.unacknowledged = 1u << 30, .delivery_rate = 100'000'000'000ULL, .min_rtt_us = UINT32_MAX - 1,
                       .rate_app_limited = false};
  EXPECT_EQ(round_trip_credit(huge), std::size_t{1} << 30);
}

}  // namespace
}  // namespace sluice::conn
