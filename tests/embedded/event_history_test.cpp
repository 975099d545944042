#include "embedded/event_history.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::embedded {
namespace {

TEST(EventHistory, KeepsTheNewestEventsOldestFirstAndCountsWhatLeft) {
  HistoryRecord records[3];
  EventHistory history(records);
  for (std::uint64_t id = 1; id <= 5; ++id) history.record(id, "t" + std::to_string(id % 2), "e" + std::to_string(id));
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history.capacity(), 3u);
  EXPECT_EQ(history.lost_through(), 2u);
  for (std::size_t i = 0; i < 3; ++i) {
    const std::uint64_t id = 3 + i;
    EXPECT_EQ(history.at(i).id, id);
    EXPECT_EQ(history.at(i).topic_name(), "t" + std::to_string(id % 2));
    EXPECT_EQ(history.at(i).event_data(), "e" + std::to_string(id));
  }
}

// An event longer than a record is not kept, and counts as lost: a resume
// from before it cannot be given everything.
TEST(EventHistory, AnEventLongerThanARecordIsLostAndTheOthersStay) {
  HistoryRecord records[4];
  EventHistory history(records);
  history.record(1, "t", std::string(kHistoryDataBytes, 'a'));
  history.record(2, "t", std::string(kHistoryDataBytes + 1, 'b'));
  history.record(3, "t", "c");
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history.at(0).event_data(), std::string(kHistoryDataBytes, 'a'));
  EXPECT_EQ(history.at(1).id, 3u);
  EXPECT_EQ(history.lost_through(), 2u);
}

TEST(EventHistory, WithoutRecordsEveryEventIsLost) {
  EventHistory history;
  history.record(7, "t", "e");
  EXPECT_EQ(history.size(), 0u);
  EXPECT_EQ(history.lost_through(), 7u);
}

}  // namespace
}  // namespace sluice::embedded
