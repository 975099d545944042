#include "conn/policy.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sluice::conn {
namespace {

// Budget: three 10-byte events.
struct PolicyTest : testing::Test {
  buf::Pool pool{{.block_count = 64, .block_size = 64, .reserve = 0}};
  OutQueue out{{.max_bytes = 30, .max_frames = 100, .max_control_frames = 4}};
  DropRecord drops[2];

  Verdict offer(Policy policy, std::uint64_t id, std::uint32_t topic = 0, std::uint64_t key = 0) {
    return enqueue_with_policy(out, policy, buf::make_frame(pool, buf::Lane::data, "0123456789"), {id, topic, key},
                               drops);
  }
  std::vector<std::uint64_t> queued_ids() {
    std::vector<std::uint64_t> ids;
    while (auto tag = out.drop_oldest_data()) ids.push_back(tag->id);
    return ids;
  }
};

TEST_F(PolicyTest, NamesRoundTrip) {
  for (int i = 0; i < kPolicyCount; ++i) {
    const auto p = static_cast<Policy>(i);
    EXPECT_EQ(parse_policy(policy_name(p)), p);
  }
  EXPECT_EQ(parse_policy("newest"), std::nullopt);
}

TEST_F(PolicyTest, FifoAndDisconnectCutOffPastTheBudgetAndDropNothing) {
  for (Policy p : {Policy::fifo, Policy::disconnect}) {
    for (std::uint64_t id = 1; id <= 3; ++id) EXPECT_EQ(offer(p, id), Verdict::queued);
    EXPECT_EQ(offer(p, 4), Verdict::cut_off);
    EXPECT_TRUE(drops[0].empty());
    EXPECT_EQ(queued_ids(), (std::vector<std::uint64_t>{1, 2, 3}));
  }
}

TEST_F(PolicyTest, DropNewestKeepsTheQueueAndRecordsTheLoss) {
  for (std::uint64_t id = 1; id <= 5; ++id) offer(Policy::drop_newest, id);
  EXPECT_EQ(queued_ids(), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(drops[0].count, 2u);
  EXPECT_EQ(drops[0].first_id, 4u);
  EXPECT_EQ(drops[0].last_id, 5u);
}

TEST_F(PolicyTest, DropOldestKeepsTheNewest) {
  for (std::uint64_t id = 1; id <= 6; ++id) EXPECT_EQ(offer(Policy::drop_oldest, id), Verdict::queued);
  EXPECT_EQ(queued_ids(), (std::vector<std::uint64_t>{4, 5, 6}));
  EXPECT_EQ(drops[0].count, 3u);
  EXPECT_EQ(drops[0].first_id, 1u);
  EXPECT_EQ(drops[0].last_id, 3u);
}

TEST_F(PolicyTest, DropOldestRecordsLossesAgainstTheirOwnTopic) {
  offer(Policy::drop_oldest, 1, 1);
  offer(Policy::drop_oldest, 2, 1);
  offer(Policy::drop_oldest, 3, 1);
  offer(Policy::drop_oldest, 10, 0);
  EXPECT_EQ(drops[1].count, 1u);
  EXPECT_EQ(drops[1].first_id, 1u);
  EXPECT_TRUE(drops[0].empty());
}

TEST_F(PolicyTest, LatestKeepsOnePendingEventPerTopicAndKey) {
  offer(Policy::latest, 1, 0, 7);
  offer(Policy::latest, 2, 0, 8);
  offer(Policy::latest, 3, 0, 7);  // replaces 1, in its place
  offer(Policy::latest, 4, 1, 7);  // another topic: its own slot
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 1u);
  EXPECT_EQ(queued_ids(), (std::vector<std::uint64_t>{3, 2, 4}));
}

TEST_F(PolicyTest, LatestFallsBackToDropOldestWithTooManyKeys) {
  for (std::uint64_t id = 1; id <= 5; ++id) offer(Policy::latest, id, 0, id);
  EXPECT_EQ(queued_ids(), (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_EQ(drops[0].count, 2u);
}

TEST_F(PolicyTest, TheFrameOnTheWireIsNeverReplaced) {
  struct OneByte final : Writer {
    long writev(const struct iovec*, int) override { return 1; }
  } writer;
  offer(Policy::latest, 1);
  (void)out.flush(writer);  // frame 1 is now in flight
  offer(Policy::latest, 2);
  EXPECT_TRUE(drops[0].empty());
  EXPECT_EQ(out.data_frames(), 2u);
}

}  // namespace
}  // namespace sluice::conn
