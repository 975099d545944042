#include "session/h2_exchanges.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "buf/pool.hpp"

namespace sluice::session {
namespace {

struct Fixture {
  buf::Pool pool{{.block_count = 16, .block_size = 256, .reserve = 2, .prefault = false}};
};

TEST(H2Exchanges, AStreamIsFoundByItsIdUntilRetired) {
  Fixture f;
  H2Exchanges exchanges(4, f.pool);
  H2Exchange* one = exchanges.open(1);
  H2Exchange* three = exchanges.open(3);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(exchanges.find(1), one);
  EXPECT_EQ(exchanges.find(3), three);
  EXPECT_EQ(exchanges.find(5), nullptr);
  EXPECT_EQ(exchanges.open(3), nullptr);  // one exchange per stream
  exchanges.retire(*one);
  EXPECT_EQ(exchanges.find(1), nullptr);
  EXPECT_EQ(exchanges.find(3), three);
  EXPECT_EQ(exchanges.open_count(), 1u);
}

TEST(H2Exchanges, NoMoreThanTheLimitAreOpenAtOnce) {
  Fixture f;
  H2Exchanges exchanges(3, f.pool);
  ASSERT_NE(exchanges.open(1), nullptr);
  ASSERT_NE(exchanges.open(3), nullptr);
  H2Exchange* five = exchanges.open(5);
  ASSERT_NE(five, nullptr);
  EXPECT_EQ(exchanges.open(7), nullptr);
  exchanges.retire(*five);  // holds no stream object: reusable at once
  H2Exchange* seven = exchanges.open(7);
  EXPECT_EQ(seven, five);
  EXPECT_EQ(seven->id, 7);
}

// A spent exchange comes back reset, keeping what its strings had grown.
TEST(H2Exchanges, ASpentExchangeIsReusedEmptyWithItsCapacity) {
  Fixture f;
  H2Exchanges exchanges(1, f.pool);
  H2Exchange* first = exchanges.open(1);
  first->posting = true;
  first->topic.assign(100, 't');
  ASSERT_EQ(first->body.append("body"), BodyGrowth::ok);
  const std::size_t capacity = first->topic.capacity();
  exchanges.retire(*first);
  H2Exchange* again = exchanges.open(3);
  ASSERT_EQ(again, first);
  EXPECT_FALSE(again->posting);
  EXPECT_TRUE(again->topic.empty());
  EXPECT_EQ(again->topic.capacity(), capacity);
  EXPECT_EQ(again->body.size(), 0u);
  EXPECT_EQ(f.pool.free_blocks(), 16u);
}

// Ids far apart and close together, retired in an order that leaves holes
// in the probe runs: every open one is still found, no retired one is.
TEST(H2Exchanges, LookupsSurviveRetiringInAnyOrder) {
  Fixture f;
  constexpr int kLimit = 100;
  H2Exchanges exchanges(kLimit, f.pool);
  std::set<std::int32_t> open;
  std::vector<std::int32_t> ever;
  std::int32_t next = 1;
  for (int round = 0; round < 50; ++round) {
    while (open.size() < kLimit) {
      ASSERT_NE(exchanges.open(next), nullptr);
      open.insert(next);
      ever.push_back(next);
      next += round % 3 == 0 ? 2 : 2 * 256 + 2;  // some ids collide on their home entry
    }
    std::vector<std::int32_t> gone;
    for (const std::int32_t id : open) {
      if ((id / 2 + round) % 3 != 0) gone.push_back(id);
    }
    for (const std::int32_t id : gone) {
      exchanges.retire(*exchanges.find(id));
      open.erase(id);
    }
    for (const std::int32_t id : ever) {
      const H2Exchange* found = exchanges.find(id);
      ASSERT_EQ(found != nullptr, open.count(id) == 1) << "stream " << id << " round " << round;
      if (found != nullptr) {
        EXPECT_EQ(found->id, id);
      }
    }
  }
}

TEST(H2Exchanges, RetiringAllLeavesNoneOpen) {
  Fixture f;
  H2Exchanges exchanges(8, f.pool);
  for (std::int32_t id = 1; id < 16; id += 2) ASSERT_NE(exchanges.open(id), nullptr);
  exchanges.retire_all();
  EXPECT_TRUE(exchanges.empty());
  int visited = 0;
  exchanges.for_each([&](H2Exchange&) { ++visited; });
  EXPECT_EQ(visited, 0);
  EXPECT_NE(exchanges.open(17), nullptr);
}

}  // namespace
}  // namespace sluice::session
