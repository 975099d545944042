#include "backoff.hpp"

#include <gtest/gtest.h>

#include <set>

namespace sluice::client::detail {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, DoublesFromTheBaseWithinTheUpperHalf) {
  Backoff backoff(milliseconds(100), milliseconds(100000));
  for (int i = 0; i < 8; ++i) {
    const auto full = 100 << i;
    const milliseconds d = backoff.next();
    EXPECT_GE(d.count(), full / 2) << i;
    EXPECT_LE(d.count(), full) << i;
  }
  EXPECT_EQ(backoff.failures(), 8u);
}

TEST(Backoff, StopsAtTheCap) {
  Backoff backoff(milliseconds(1000), milliseconds(5000));
  for (int i = 0; i < 100; ++i) EXPECT_LE(backoff.next().count(), 5000);
  EXPECT_GE(backoff.next().count(), 2500);
}

TEST(Backoff, TheServersRetryBecomesTheBaseAndResetStartsAgain) {
  Backoff backoff(milliseconds(1000), milliseconds(60000));
  (void)backoff.next();
  (void)backoff.next();
  backoff.set_base(milliseconds(200));
  backoff.reset();
  const milliseconds d = backoff.next();
  EXPECT_GE(d.count(), 100);
  EXPECT_LE(d.count(), 200);
}

TEST(Backoff, AZeroBaseIsUsedOnceAndLaterFailuresStillBackOff) {
  Backoff backoff(milliseconds(0), milliseconds(60000));
  EXPECT_EQ(backoff.next().count(), 0);
  for (int i = 1; i < 6; ++i) {
    const milliseconds d = backoff.next();
    EXPECT_GE(d.count(), 25 << i) << i;
    EXPECT_LE(d.count(), 50 << i) << i;
  }
}

TEST(Backoff, AServersRetryIsTakenAsAtLeast50Ms) {
  Backoff backoff(milliseconds(1000), milliseconds(60000));
  backoff.set_base(milliseconds(0));
  const milliseconds d = backoff.next();
  EXPECT_GE(d.count(), 25);
  EXPECT_LE(d.count(), 50);
}

TEST(Backoff, RetryAfterIsWaitedAtLeastButNotPastTheCap) {
  Backoff backoff(milliseconds(10), milliseconds(3000));
  EXPECT_EQ(backoff.next(milliseconds(2000)), milliseconds(2000));
  EXPECT_EQ(backoff.next(milliseconds(9000)), milliseconds(3000));
}

TEST(Backoff, DelaysAreJittered) {
  Backoff backoff(milliseconds(1 << 20), milliseconds(1 << 30));
  std::set<long long> seen;
  for (int i = 0; i < 20; ++i) {
    backoff.reset();
    seen.insert(backoff.next().count());
  }
  EXPECT_GT(seen.size(), 10u);  // 20 draws from 2^19 values
}

TEST(Backoff, HugeServerRetriesAreCapped) {
  Backoff backoff(milliseconds(10), milliseconds(1000));
  backoff.set_base(milliseconds(std::numeric_limits<std::int32_t>::max()));
  for (int i = 0; i < 40; ++i) EXPECT_LE(backoff.next().count(), 1000);
}

}  // namespace
}  // namespace sluice::client::detail
