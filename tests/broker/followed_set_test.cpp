#include "broker/followed_set.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::broker {
namespace {

TEST(FollowedSet, AddFindRemoveKeepsEachTopicInItsSlot) {
  FollowedSet set(10);
  for (const char* t : {"a", "b", "c"}) ASSERT_NE(set.add(t), nullptr);
  EXPECT_EQ(set.add("b"), nullptr);  // once only
  set.find("a")->position = {1, 1};
  set.find("c")->position = {3, 3};
  const std::size_t c_index = set.index_of(*set.find("c"));
  set.remove("a");
  ASSERT_EQ(set.size(), 2u);
  ASSERT_NE(set.find("c"), nullptr);
  EXPECT_EQ(set.find("c")->position, (StreamId{3, 3}));
  EXPECT_EQ(set.index_of(*set.find("c")), c_index);
  EXPECT_EQ(set.find("a"), nullptr);
  EXPECT_EQ(set[0].topic, nullptr);  // a's slot is free
  set.remove("zz");
  EXPECT_EQ(set.size(), 2u);
  ASSERT_NE(set.add("d"), nullptr);  // takes the free slot
  EXPECT_EQ(set.slot_count(), 3u);
  EXPECT_EQ(*set[0].topic, "d");
}

TEST(FollowedSet, RefusesPastItsBound) {
  FollowedSet set(2);
  ASSERT_NE(set.add("a"), nullptr);
  ASSERT_NE(set.add("b"), nullptr);
  EXPECT_EQ(set.add("c"), nullptr);
  set.remove("a");
  EXPECT_NE(set.add("c"), nullptr);
}

// A late answer for a slot names the follow it was for: after the topic
// left and another took its slot, the answer finds nothing.
TEST(FollowedSet, SerialsTellFollowsApart) {
  FollowedSet set(4);
  Followed* first = set.add("a");
  const std::uint32_t serial = first->serial;
  const std::size_t index = set.index_of(*first);
  EXPECT_EQ(set.at(index, serial), first);
  set.remove("a");
  Followed* second = set.add("a");
  EXPECT_EQ(set.index_of(*second), index);
  EXPECT_EQ(set.at(index, serial), nullptr);
  EXPECT_EQ(set.at(index, second->serial), second);
  EXPECT_EQ(set.at(99, second->serial), nullptr);
}

}  // namespace
}  // namespace sluice::broker
