#include "broker/backoff.hpp"

#include <gtest/gtest.h>

namespace sluice::broker {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, DoublesFromTheFirstUpToTheLongestWithinTheUpperHalf) {
  Backoff backoff(milliseconds(100), milliseconds(1000), 7);
  const std::int64_t full[] = {100, 200, 400, 800, 1000, 1000, 1000};
  for (const std::int64_t f : full) {
    const milliseconds wait = backoff.next();
    EXPECT_GE(wait.count(), f / 2);
    EXPECT_LE(wait.count(), f);
  }
}

TEST(Backoff, ResetStartsOver) {
  Backoff backoff(milliseconds(100), milliseconds(1000), 7);
  for (int i = 0; i < 40; ++i) (void)backoff.next();  // past any shift overflow
  EXPECT_LE(backoff.next().count(), 1000);
  backoff.reset();
  EXPECT_LE(backoff.next().count(), 100);
}

TEST(Backoff, LoopsCutOffTogetherSpreadOut) {
  Backoff a(milliseconds(1000), milliseconds(1000), 1);
  Backoff b(milliseconds(1000), milliseconds(1000), 2);
  int same = 0;
  for (int i = 0; i < 20; ++i) same += a.next() == b.next();
  EXPECT_LT(same, 5);
}

TEST(Backoff, ZeroSettingsStillWait) {
  Backoff backoff(milliseconds(0), milliseconds(0), 3);
  EXPECT_EQ(backoff.next().count(), 1);
}

}  // namespace
}  // namespace sluice::broker
