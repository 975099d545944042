#include "broker/shard_map.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::broker {
namespace {

std::vector<std::string> topics(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("topic." + std::to_string(i));
  return out;
}

// Every node must agree without talking: the hash is fixed, not the
// standard library's.
TEST(ShardMap, HashIsFnv1a64) {
  EXPECT_EQ(topic_hash(""), 14695981039346656037ull);
  EXPECT_EQ(topic_hash("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(topic_hash("foobar"), 0x85944171f73967e8ull);
}

TEST(ShardMap, OneOrNoInstanceTakesEverything) {
  for (const std::string& t : topics(100)) {
    EXPECT_EQ(shard_of(t, 0), 0u);
    EXPECT_EQ(shard_of(t, 1), 0u);
  }
}

TEST(ShardMap, SpreadsTopicsEvenly) {
  constexpr int kTopics = 20000;
  constexpr std::size_t kShards = 4;
  std::vector<int> count(kShards);
  for (const std::string& t : topics(kTopics)) {
    const std::size_t s = shard_of(t, kShards);
    ASSERT_LT(s, kShards);
    ++count[s];
  }
  for (const int c : count) {
    EXPECT_GT(c, kTopics / static_cast<int>(kShards) * 9 / 10);
    EXPECT_LT(c, kTopics / static_cast<int>(kShards) * 11 / 10);
  }
}

// Appending an instance moves only the topics that go to it, about 1/N.
TEST(ShardMap, AppendingAnInstanceMovesOnlyTopicsToIt) {
  constexpr int kTopics = 20000;
  int moved = 0;
  for (const std::string& t : topics(kTopics)) {
    const std::size_t before = shard_of(t, 3);
    const std::size_t after = shard_of(t, 4);
    if (before != after) {
      EXPECT_EQ(after, 3u) << t;
      ++moved;
    }
  }
  EXPECT_GT(moved, kTopics / 4 * 9 / 10);
  EXPECT_LT(moved, kTopics / 4 * 11 / 10);
}

}  // namespace
}  // namespace sluice::broker
