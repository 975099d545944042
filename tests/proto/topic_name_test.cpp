#include "proto/topic_name.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::proto {
namespace {

TEST(TopicName, Alphabet) {
  EXPECT_TRUE(valid_topic_name("sensors.room-1:temp_c", 64));
  EXPECT_FALSE(valid_topic_name("", 64));
  EXPECT_FALSE(valid_topic_name("a/b", 64));
  EXPECT_FALSE(valid_topic_name("é", 64));
  EXPECT_FALSE(valid_topic_name("abc", 2));
}

TEST(TopicName, TheCeilingIsTheLongestAnyServerAccepts) {
  EXPECT_TRUE(valid_topic_name(std::string(kTopicNameCeiling, 'x'), kTopicNameCeiling));
  EXPECT_FALSE(valid_topic_name(std::string(kTopicNameCeiling + 1, 'x'), kTopicNameCeiling));
}

}  // namespace
}  // namespace sluice::proto
