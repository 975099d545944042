// The packet link's arithmetic: packets leave at the rate in the order they
// came, each then takes the delay, and a full queue drops.
#include "link_bottleneck.hpp"

#include <gtest/gtest.h>

namespace sluice::bench {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

TEST(LinkBottleneck, AnIdleLinkDeliversAfterTheSendingTimeAndTheDelay) {
  LinkBottleneck link(1'000'000, 20 * kMs, 64 << 10);  // 1 MB/s: 1 µs a byte
  const auto due = link.admit(5 * kMs, 1000);
  ASSERT_TRUE(due);
  EXPECT_EQ(*due, 5 * kMs + 1 * kMs + 20 * kMs);
  EXPECT_EQ(link.queued(5 * kMs), 1000u);
  EXPECT_EQ(link.queued(6 * kMs), 0u);
}

TEST(LinkBottleneck, PacketsThatFindTheLinkBusyLeaveOneAfterAnother) {
  LinkBottleneck link(1'000'000, 10 * kMs, 64 << 10);
  const auto first = link.admit(0, 1500);
  const auto second = link.admit(0, 1500);
  const auto later = link.admit(10 * kMs, 500);  // the link is idle again by then
  ASSERT_TRUE(first && second && later);
  EXPECT_EQ(*second - *first, 1500'000u);
  EXPECT_EQ(*later, 10 * kMs + 500'000 + 10 * kMs);
}

TEST(LinkBottleneck, AFullQueueDropsAndTakesPacketsAgainOnceItDrains) {
  LinkBottleneck link(1'000'000, 0, 3000);
  ASSERT_TRUE(link.admit(0, 1500));
  ASSERT_TRUE(link.admit(0, 1500));
  EXPECT_FALSE(link.admit(0, 1500));  // 3000 bytes wait: no room for more
  EXPECT_FALSE(link.admit(1 * kMs, 1500));  // 2000 still wait
  const auto after = link.admit(2 * kMs, 1500);  // 1000 wait
  ASSERT_TRUE(after);
  EXPECT_EQ(*after, 3 * kMs + 1500'000u);  // behind the two admitted first
}

TEST(LinkBottleneck, WithoutARateAPacketOnlyTakesTheDelay) {
  LinkBottleneck link(0, 7 * kMs, 1);
  for (int i = 0; i < 100; ++i) {
    const auto due = link.admit(kMs, 65535);
    ASSERT_TRUE(due);
    EXPECT_EQ(*due, 8 * kMs);
  }
  EXPECT_EQ(link.queued(kMs), 0u);
}

}  // namespace
}  // namespace sluice::bench
