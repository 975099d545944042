#include "hub/event_id.hpp"

#include <gtest/gtest.h>

namespace sluice::hub {
namespace {

TEST(EventId, FormatsAndParsesBack) {
  char text[kMaxIdText];
  const std::size_t n = format_event_id("mhq3x1", kMaxEventSeq, text);
  const ParsedId id = parse_event_id(std::string_view(text, n));
  ASSERT_TRUE(id.ok);
  EXPECT_EQ(id.epoch, "mhq3x1");
  EXPECT_EQ(id.seq, kMaxEventSeq);
}

// An id whose next would wrap, or land on the hub's marks at the top of
// the range, is refused however well formed (a client sent it).
TEST(EventId, RefusesASeqPastTheLargestATopicCounts) {
  for (const char* bad : {"e:9223372036854775808", "e:18446744073709551614", "e:18446744073709551615"}) {
    EXPECT_FALSE(parse_event_id(bad).ok) << bad;
  }
  EXPECT_TRUE(parse_event_id("e:9223372036854775807").ok);
}

TEST(EventId, RejectsWhatIsNotOurs) {
  for (const char* bad : {"", "12", ":5", "e:", "e:5x", "e:-1", "e:99999999999999999999999"}) {
    EXPECT_FALSE(parse_event_id(bad).ok) << bad;
  }
}

TEST(EventId, EpochsOfDifferentRunsDiffer) {
  EXPECT_FALSE(make_epoch().empty());
  EXPECT_LE(make_epoch().size(), 13u);
}

}  // namespace
}  // namespace sluice::hub
