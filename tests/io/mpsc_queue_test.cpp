#include "io/mpsc_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace sluice::io {
namespace {

TEST(MpscQueue, IsFifoAndBounded) {
  MpscQueue<int> q(3);  // rounds up to 4
  EXPECT_EQ(q.capacity(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(q.try_push(int{i}));
  EXPECT_FALSE(q.try_push(99));
  int v = -1;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(q.try_pop(v));
    EXPECT_EQ(v, i);
  }
  EXPECT_FALSE(q.try_pop(v));
  EXPECT_TRUE(q.try_push(5));  // the ring wraps
  ASSERT_TRUE(q.try_pop(v));
  EXPECT_EQ(v, 5);
}

// Many producers, one consumer: nothing lost or duplicated, and each
// producer's items come out in its order. Run under TSan in CI.
TEST(MpscQueue, ManyProducersKeepTheirOwnOrder) {
  constexpr int kProducers = 8;
  constexpr int kEach = 20000;
  MpscQueue<std::uint64_t> q(1024);
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&q, p] {
      for (int i = 0; i < kEach; ++i) {
        const std::uint64_t item = (static_cast<std::uint64_t>(p) << 32) | static_cast<std::uint32_t>(i);
        while (!q.try_push(std::uint64_t{item})) std::this_thread::yield();
      }
    });
  }
  std::vector<int> next(kProducers, 0);
  int received = 0;
  std::uint64_t item = 0;
  while (received < kProducers * kEach) {
    if (!q.try_pop(item)) {
      std::this_thread::yield();
      continue;
    }
    const auto p = static_cast<int>(item >> 32);
    ASSERT_EQ(static_cast<int>(item & 0xffffffff), next[p]) << "producer " << p;
    ++next[p];
    ++received;
  }
  for (auto& t : producers) t.join();
  EXPECT_FALSE(q.try_pop(item));
}

}  // namespace
}  // namespace sluice::io
