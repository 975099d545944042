#include "delivery/policy.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

namespace sluice::delivery {
namespace {

// Takes every byte, as a socket with room does.
struct TakesAll final : conn::Writer {
  long writev(const struct iovec* iov, int count) override {
    long n = 0;
    for (int i = 0; i < count; ++i) n += static_cast<long>(iov[i].iov_len);
    return n;
  }
};

// Takes nothing, as a socket whose reader's buffer is full.
struct Full final : conn::Writer {
  long writev(const struct iovec*, int) override { return -EAGAIN; }
};

// Budget: three 10-byte frames.
struct PolicyTest : testing::Test {
  buf::Pool pool{{.block_count = 64, .block_size = 64, .reserve = 0}};
  conn::OutQueue out{{.max_bytes = 30, .max_frames = 100, .max_control_frames = 4}};
  DropRecord drops[2];

  buf::FrameRef ten_bytes() { return buf::make_frame(pool, buf::Lane::data, "0123456789"); }
  Verdict offer(Policy policy, std::uint64_t id, std::uint32_t topic = 0, std::uint64_t key = 0) {
    return enqueue_with_policy(out, policy, ten_bytes(), FrameTag::event(topic, id, key), drops);
  }
  // A flush whose writer takes nothing (the reader's buffer is full): what
  // waits now is stale to `latest`.
  void back_up() {
    Full writer;
    ASSERT_EQ(out.flush(writer).status, conn::FlushStatus::blocked);
    ASSERT_TRUE(out.backed_up());
  }
  // A frame that is not an event, queued as the server queues one: an
  // application message (no tag) or a reset notice of topic 0.
  void queue_application_message() { ASSERT_EQ(out.push_data(ten_bytes()), conn::EnqueueStatus::ok); }
  void queue_notice() { ASSERT_EQ(out.push_data(ten_bytes(), FrameTag::notice(0).label()), conn::EnqueueStatus::ok); }
  // What waits, oldest first, as event ids; a frame that is not an event
  // reads as kNotAnEvent.
  static constexpr std::uint64_t kNotAnEvent = ~std::uint64_t{0};
  std::vector<std::uint64_t> queued() {
    std::vector<std::uint64_t> ids;
    while (auto label = out.drop_oldest_data()) {
      const FrameTag tag = FrameTag::of(*label);
      ids.push_back(tag.is_event() ? tag.id : kNotAnEvent);
    }
    return ids;
  }
};

TEST(FrameTag, SurvivesTheQueuesLabel) {
  const FrameTag tag = FrameTag::event(0xfffffffe, 0x0123456789abcdef, 0xfedcba9876543210);
  const FrameTag back = FrameTag::of(tag.label());
  EXPECT_EQ(back.kind, FrameKind::event);
  EXPECT_EQ(back.topic, tag.topic);
  EXPECT_EQ(back.id, tag.id);
  EXPECT_EQ(back.key, tag.key);
  EXPECT_FALSE(back.yields);
  FrameTag yielding = tag;
  yielding.yields = true;
  EXPECT_TRUE(FrameTag::of(yielding.label()).yields);
  EXPECT_EQ(FrameTag::of(yielding.label()).kind, FrameKind::event);
  EXPECT_EQ(FrameTag::of(yielding.label()).topic, tag.topic);
  EXPECT_EQ(FrameTag::of(FrameTag::notice(7).label()).kind, FrameKind::notice);
  EXPECT_EQ(FrameTag::of(conn::FrameLabel{}).kind, FrameKind::application);
}

TEST(FrameTag, ARunKeepsItsFirstAndLastId) {
  const FrameTag back = FrameTag::of(FrameTag::run(3, 10, 250).label());
  EXPECT_EQ(back.kind, FrameKind::run);
  EXPECT_TRUE(back.holds_events());
  EXPECT_FALSE(back.is_event());
  EXPECT_EQ(back.topic, 3u);
  EXPECT_EQ(back.id, 10u);
  EXPECT_EQ(back.last_id(), 250u);
  EXPECT_EQ(FrameTag::event(0, 7, 99).last_id(), 7u);
}

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
    EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 2, 3}));
  }
}

TEST_F(PolicyTest, DropNewestKeepsTheQueueAndRecordsTheLoss) {
  for (std::uint64_t id = 1; id <= 5; ++id) offer(Policy::drop_newest, id);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(drops[0].count, 2u);
  EXPECT_EQ(drops[0].first_id, 4u);
  EXPECT_EQ(drops[0].last_id, 5u);
}

TEST_F(PolicyTest, DropOldestKeepsTheNewest) {
  for (std::uint64_t id = 1; id <= 6; ++id) EXPECT_EQ(offer(Policy::drop_oldest, id), Verdict::queued);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{4, 5, 6}));
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

// Each topic keeps its own policy on a shared budget: a drop-oldest or
// latest topic makes room from the events of topics that drop too, never
// from a fifo topic's (nothing of it may be lost) nor a drop-newest
// topic's (it keeps what waits); short of those, its own new event goes.
TEST_F(PolicyTest, AnotherTopicsPolicyNeverDropsAFifoOrDropNewestTopicsEvents) {
  for (const Policy kept : {Policy::fifo, Policy::drop_newest}) {
    for (const Policy dropping : {Policy::drop_oldest, Policy::latest}) {
      drops[0] = {};
      drops[1] = {};
      for (std::uint64_t id = 1; id <= 3; ++id) ASSERT_EQ(offer(kept, id, 1), Verdict::queued);
      EXPECT_EQ(offer(dropping, 10, 0), Verdict::dropped) << policy_name(kept) << " / " << policy_name(dropping);
      EXPECT_TRUE(drops[1].empty()) << policy_name(kept) << " / " << policy_name(dropping);
      EXPECT_EQ(drops[0].count, 1u);
      EXPECT_EQ(drops[0].first_id, 10u);
      EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 2, 3}));
    }
  }
}

TEST_F(PolicyTest, ATopicThatDropsMakesRoomFromAnotherThatDropsButNotFromAFifoOne) {
  ASSERT_EQ(offer(Policy::fifo, 1, 1), Verdict::queued);
  ASSERT_EQ(offer(Policy::drop_oldest, 5, 0), Verdict::queued);
  ASSERT_EQ(offer(Policy::fifo, 2, 1), Verdict::queued);
  EXPECT_EQ(offer(Policy::drop_oldest, 20, 0), Verdict::queued);
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 5u);
  EXPECT_TRUE(drops[1].empty());
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 2, 20}));
}

// Swapping pending small events for large ones of the same keys would
// hold more than the budget in as many frames: a larger event takes a
// place only within it, else it is queued as new, making room.
TEST_F(PolicyTest, LatestNeverHoldsMoreThanTheByteBudgetBySwappingInLargerEvents) {
  for (std::uint64_t key = 1; key <= 3; ++key) ASSERT_EQ(offer(Policy::latest, key, 0, key), Verdict::queued);
  back_up();
  const buf::FrameRef large = buf::make_frame(pool, buf::Lane::data, std::string(25, 'L'));
  EXPECT_EQ(enqueue_with_policy(out, Policy::latest, large, FrameTag::event(0, 11, 1), drops), Verdict::queued);
  EXPECT_LE(out.data_bytes(), 30u);
  EXPECT_EQ(drops[0].count, 3u);  // key 1's own, then the oldest until the large one fits
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{11}));
}

TEST_F(PolicyTest, LatestKeepsOnePendingEventPerTopicAndKey) {
  offer(Policy::latest, 1, 0, 7);
  offer(Policy::latest, 2, 0, 8);
  offer(Policy::latest, 3, 1, 7);  // another topic: its own slot
  back_up();
  offer(Policy::latest, 4, 0, 8);  // replaces 2, in its place
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 2u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 4, 3}));
}

// The place of a key's pending event is ahead of another key's: taking it
// would hand the topic's ids over out of order (5 before 2), and a client
// resuming from the last id it got would be handed 3 and 4 again.
TEST_F(PolicyTest, LatestKeepsATopicsIdsInOrderAcrossKeys) {
  offer(Policy::latest, 1, 0, 7);
  offer(Policy::latest, 2, 0, 8);
  back_up();
  EXPECT_EQ(offer(Policy::latest, 5, 0, 7), Verdict::queued);
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 1u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{2, 5}));
}

// Events that came in together, before any flush, are not stale: a reader
// with room for them gets every one.
TEST_F(PolicyTest, LatestReplacesNothingBeforeAFlushLeavesIt) {
  EXPECT_EQ(offer(Policy::latest, 1), Verdict::queued);
  EXPECT_EQ(offer(Policy::latest, 2), Verdict::queued);
  EXPECT_FALSE(out.backed_up());
  EXPECT_TRUE(drops[0].empty());
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 2}));
}

// A tick's events that a flush could not all write are replaced together
// by the next one: the reader is not handed them one stale read at a time.
TEST_F(PolicyTest, LatestReplacesEveryEventOfAKeyThatAFlushLeft) {
  offer(Policy::latest, 1, 0, 7);
  offer(Policy::latest, 2, 0, 8);
  offer(Policy::latest, 3, 0, 7);
  back_up();
  EXPECT_EQ(offer(Policy::latest, 4, 0, 7), Verdict::queued);
  EXPECT_EQ(drops[0].count, 2u);
  EXPECT_EQ(drops[0].first_id, 1u);
  EXPECT_EQ(drops[0].last_id, 3u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{2, 4}));
}

// Over the budget before any flush, a pending event of the same key gives
// way, not the oldest event of another key, which may be that key's only
// and newest value.
TEST_F(PolicyTest, LatestPastTheBudgetReplacesItsOwnKeyBeforeDroppingAnothers) {
  offer(Policy::latest, 1, 0, 7);  // key 7's only value
  offer(Policy::latest, 2, 0, 8);
  offer(Policy::latest, 3, 0, 8);
  EXPECT_FALSE(out.backed_up());
  EXPECT_EQ(offer(Policy::latest, 4, 0, 8), Verdict::queued);
  EXPECT_EQ(drops[0].count, 2u);
  EXPECT_EQ(drops[0].first_id, 2u);
  EXPECT_EQ(drops[0].last_id, 3u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 4}));
}

TEST_F(PolicyTest, AFlushThatWritesEverythingEndsTheBackUp) {
  offer(Policy::latest, 1);
  back_up();
  TakesAll writer;
  EXPECT_EQ(out.flush(writer).status, conn::FlushStatus::drained);
  EXPECT_FALSE(out.backed_up());
  offer(Policy::latest, 2);
  offer(Policy::latest, 3);
  EXPECT_TRUE(drops[0].empty());
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{2, 3}));
}

// What an allowance held only until the reader answers a question on its
// way (a latency gate asking a reader that answers in time) is not stale:
// the next events queue behind it. What an allowance held from a reader
// found behind is, and so is what a full socket left, whatever the
// allowance; and likewise at the end of an HTTP/2 round.
TEST_F(PolicyTest, LatestKeepsWhatWaitsOnlyForTheReadersAnswer) {
  TakesAll writer;
  const conn::DataAllowance one_awaiting{.bytes = 10, .one_frame = true, .awaits_answer = true};
  offer(Policy::latest, 1);
  offer(Policy::latest, 2);
  EXPECT_EQ(out.flush(writer, one_awaiting).status, conn::FlushStatus::held);
  EXPECT_FALSE(out.backed_up());
  offer(Policy::latest, 3);
  EXPECT_TRUE(drops[0].empty());

  EXPECT_EQ(out.flush(writer, {.bytes = 0, .one_frame = false}).status, conn::FlushStatus::held);
  EXPECT_TRUE(out.backed_up());
  offer(Policy::latest, 4);
  EXPECT_EQ(drops[0].count, 2u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{4}));

  offer(Policy::latest, 5);
  Full full;
  EXPECT_EQ(out.flush(full, one_awaiting).status, conn::FlushStatus::blocked);
  EXPECT_TRUE(out.backed_up());

  out.end_round(true);
  EXPECT_FALSE(out.backed_up());
  out.end_round(false);
  EXPECT_TRUE(out.backed_up());
}

TEST_F(PolicyTest, LatestFallsBackToDropOldestWithTooManyKeys) {
  for (std::uint64_t id = 1; id <= 5; ++id) offer(Policy::latest, id, 0, id);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_EQ(drops[0].count, 2u);
}

TEST_F(PolicyTest, TheFrameOnTheWireIsNeverReplaced) {
  struct OneByte final : conn::Writer {
    long writev(const struct iovec*, int) override { return 1; }
  } writer;
  offer(Policy::latest, 1);
  (void)out.flush(writer);  // frame 1 is now in flight
  offer(Policy::latest, 2);
  EXPECT_TRUE(drops[0].empty());
  EXPECT_EQ(out.data_frames(), 2u);
}

// Frames that are not events share a subscriber's data lane with its
// events (the application's own messages, reset notices). No policy may
// replace one, drop one as if it were an event, or report one as a lost
// event (id 0).

TEST_F(PolicyTest, LatestNeverReplacesAnApplicationMessage) {
  queue_application_message();
  EXPECT_EQ(offer(Policy::latest, 1), Verdict::queued);
  EXPECT_TRUE(drops[0].empty());
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{kNotAnEvent, 1}));
}

TEST_F(PolicyTest, LatestNeverReplacesANotice) {
  queue_notice();
  EXPECT_EQ(offer(Policy::latest, 1), Verdict::queued);
  back_up();
  EXPECT_EQ(offer(Policy::latest, 2), Verdict::queued);  // replaces 1, not the notice
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 1u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{kNotAnEvent, 2}));
}

TEST_F(PolicyTest, DropOldestDropsTheOldestEventNotAMessageBeforeIt) {
  queue_application_message();
  offer(Policy::drop_oldest, 1);
  offer(Policy::drop_oldest, 2);
  EXPECT_EQ(offer(Policy::drop_oldest, 3), Verdict::queued);
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 1u);  // never "event 0"
  EXPECT_EQ(drops[0].last_id, 1u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{kNotAnEvent, 2, 3}));
}

TEST_F(PolicyTest, DropOldestWithOnlyMessagesWaitingDropsTheNewEvent) {
  queue_application_message();
  queue_notice();
  queue_application_message();
  EXPECT_EQ(offer(Policy::drop_oldest, 5), Verdict::dropped);
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 5u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{kNotAnEvent, kNotAnEvent, kNotAnEvent}));
}

TEST_F(PolicyTest, LatestPastTheBudgetSkipsMessagesToo) {
  queue_notice();
  offer(Policy::latest, 1, 0, 1);
  offer(Policy::latest, 2, 0, 2);
  EXPECT_EQ(offer(Policy::latest, 3, 0, 3), Verdict::queued);
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 1u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{kNotAnEvent, 2, 3}));
}

TEST_F(PolicyTest, DropNewestAndFifoLeaveMessagesAlone) {
  queue_application_message();
  offer(Policy::drop_newest, 1);
  offer(Policy::drop_newest, 2);
  EXPECT_EQ(offer(Policy::drop_newest, 3), Verdict::dropped);
  EXPECT_EQ(drops[0].first_id, 3u);
  EXPECT_EQ(offer(Policy::fifo, 4), Verdict::cut_off);
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{kNotAnEvent, 1, 2}));
}

}  // namespace
}  // namespace sluice::delivery

namespace sluice::delivery {
namespace {

// A notice the client must have (a reset) takes the place of the oldest
// events that may give way, each recorded; never of an event a topic keeps.
TEST_F(PolicyTest, ANoticeMakesRoomFromEventsThatMayGiveWayOnly) {
  ASSERT_EQ(offer(Policy::fifo, 1, 1), Verdict::queued);
  ASSERT_EQ(offer(Policy::drop_oldest, 5, 0), Verdict::queued);
  ASSERT_EQ(offer(Policy::latest, 6, 0), Verdict::queued);
  EXPECT_TRUE(enqueue_notice(out, ten_bytes(), FrameTag::notice(1), drops));
  EXPECT_EQ(drops[0].count, 1u);
  EXPECT_EQ(drops[0].first_id, 5u);
  EXPECT_TRUE(drops[1].empty());
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 6, kNotAnEvent}));
}

TEST_F(PolicyTest, ANoticeBehindEventsThatMustWaitIsRefusedAndDropsNothing) {
  for (const Policy kept : {Policy::fifo, Policy::drop_newest}) {
    for (std::uint64_t id = 1; id <= 3; ++id) ASSERT_EQ(offer(kept, id), Verdict::queued);
    EXPECT_FALSE(enqueue_notice(out, ten_bytes(), FrameTag::notice(0), drops)) << policy_name(kept);
    EXPECT_TRUE(drops[0].empty());
    EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 2, 3}));
  }
}

TEST_F(PolicyTest, ARunIsQueuedWholeWhenTheBudgetTakesIt) {
  for (Policy p : {Policy::fifo, Policy::disconnect, Policy::drop_oldest, Policy::drop_newest}) {
    EXPECT_TRUE(enqueue_run(out, p, ten_bytes(), FrameTag::run(0, 1, 5)));
    ASSERT_EQ(out.pending_data(), 1u);
    EXPECT_EQ(FrameTag::of(out.pending_label(0)).last_id(), 5u);
    (void)out.drop_oldest_data();
  }
}

TEST_F(PolicyTest, ARunOverTheBudgetIsRefusedAndNothingIsQueuedOrDropped) {
  for (std::uint64_t id = 1; id <= 3; ++id) ASSERT_EQ(offer(Policy::fifo, id), Verdict::queued);
  EXPECT_FALSE(enqueue_run(out, Policy::fifo, ten_bytes(), FrameTag::run(0, 4, 9)));
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_TRUE(drops[0].empty());
}

TEST_F(PolicyTest, ARunBiggerThanTheWholeBudgetIsRefusedEvenByAnEmptyQueue) {
  const buf::FrameRef run = buf::make_frame(pool, buf::Lane::data, std::string(31, 'r'));
  EXPECT_FALSE(enqueue_run(out, Policy::fifo, run, FrameTag::run(0, 1, 31)));
  EXPECT_EQ(out.pending_data(), 0u);
  // One event that size still goes, alone.
  EXPECT_EQ(enqueue_with_policy(out, Policy::fifo, run, FrameTag::event(0, 1, 0), drops), Verdict::queued);
}

TEST_F(PolicyTest, LatestNeverTakesARun) {
  EXPECT_FALSE(enqueue_run(out, Policy::latest, ten_bytes(), FrameTag::run(0, 1, 2)));
  EXPECT_EQ(out.pending_data(), 0u);
}

TEST_F(PolicyTest, DropOldestDropsAQueuedRunWholeAndRecordsEveryIdInIt) {
  ASSERT_TRUE(enqueue_run(out, Policy::drop_oldest, ten_bytes(), FrameTag::run(1, 1, 40)));
  ASSERT_EQ(offer(Policy::drop_oldest, 41, 1), Verdict::queued);
  ASSERT_EQ(offer(Policy::drop_oldest, 42, 1), Verdict::queued);
  EXPECT_EQ(offer(Policy::drop_oldest, 43, 1), Verdict::queued);
  EXPECT_EQ(drops[1].count, 40u);
  EXPECT_EQ(drops[1].first_id, 1u);
  EXPECT_EQ(drops[1].last_id, 40u);
  EXPECT_EQ(queued(), (std::vector<std::uint64_t>{41, 42, 43}));
}

TEST_F(PolicyTest, LatestDoesNotConflateWithAQueuedRun) {
  ASSERT_TRUE(enqueue_run(out, Policy::fifo, ten_bytes(), FrameTag::run(0, 1, 2)));
  EXPECT_EQ(offer(Policy::latest, 3), Verdict::queued);
  EXPECT_EQ(out.pending_data(), 2u);
  EXPECT_TRUE(drops[0].empty());
}

}  // namespace
}  // namespace sluice::delivery
