// The book's side of a broker's stream (topic_book_stream.cpp), through a
// loop's hub: ids kept from the stream, holes, resets, resume points.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hub_fixture.hpp"

namespace sluice::hub::test {
namespace {

TEST_F(StreamTopicTest, TheFirstAndLastSubscriberOfTheNodeAreTold) {
  Collector a, b;
  ASSERT_EQ(hub.subscribe("t", &a), HubStatus::ok);
  ASSERT_EQ(hub.subscribe("t", &b), HubStatus::ok);
  EXPECT_EQ(follower.changes, (std::vector<std::string>{"t"}));
  hub.unsubscribe("t", &a);
  EXPECT_EQ(follower.changes.size(), 1u);
  hub.unsubscribe("t", &b);
  EXPECT_EQ(follower.changes, (std::vector<std::string>{"t", "t"}));
  EXPECT_FALSE(book.follow_state("t").followed);
}

TEST_F(StreamTopicTest, EventsKeepTheStreamsIdsAndEachIsTakenOnce) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 41);
  EXPECT_EQ(append(kEpoch, 42, "a"), TopicBook::Append::accepted);
  EXPECT_EQ(append(kEpoch, 43, "b"), TopicBook::Append::accepted);
  EXPECT_EQ(append(kEpoch, 43, "b again"), TopicBook::Append::accepted);  // another reader's copy
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{42, 43}));
  EXPECT_EQ(text(c.frames[0]), "id: mx4qgqmb:42\ndata: a\n\n");
  const TopicBook::FollowState state = book.follow_state("t");
  EXPECT_EQ(state.epoch, kEpoch);
  EXPECT_EQ(state.last, 43u);
  EXPECT_TRUE(c.resets.empty());
  EXPECT_TRUE(c.losses.empty());

  // A client that saw 42 resumes here by the stream's id.
  Collector resumed;
  const ReplayResult r = hub.subscribe_after("t", &resumed, 0, "mx4qgqmb:42");
  EXPECT_EQ(r.reset, nullptr);
  EXPECT_EQ(resumed.ids, (std::vector<std::uint64_t>{43}));
  Collector other;
  EXPECT_STREQ(hub.subscribe_after("t", &other, 0, "ep:42").reset, "other-epoch");
}

TEST_F(StreamTopicTest, AHoleIsToldAsLostBetweenTheEventsAroundIt) {
  Collector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 0);
  (void)book.append("t", kEpoch, 1, {"1"}, nullptr);
  (void)book.append("t", kEpoch, 5, {"5"}, nullptr);  // 2..4 trimmed before they were read
  (void)book.append("t", kEpoch, 6, {"6"}, nullptr);
  pump();
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{1, 5, 6}));
  ASSERT_EQ(c.losses.size(), 1u);
  EXPECT_EQ(c.losses[0], (std::pair<std::uint64_t, std::uint64_t>{2, 4}));
}

TEST_F(StreamTopicTest, AResetIsToldAndTheNewStreamFollows) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 7);
  append(kEpoch, 8, "old");
  book.stream_reset("t", "stream-lost", StreamAfterReset::gone);
  pump();
  ASSERT_EQ(c.resets, (std::vector<std::string>{"stream-lost"}));
  EXPECT_EQ(append(kEpoch, 9, "late copy of the lost stream"), TopicBook::Append::accepted);
  append(kLaterEpoch, 1, "new");
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{8, 1}));
  EXPECT_EQ(c.resets.size(), 1u);
  EXPECT_EQ(book.follow_state("t").epoch, kLaterEpoch);

  // A stream replaced under a reader (a later epoch without a reset first).
  append(kLaterEpoch + 1, 1, "newer");
  EXPECT_EQ(c.resets, (std::vector<std::string>{"stream-lost", "stream-replaced"}));
  EXPECT_EQ(c.ids.back(), 1u);
}

// A reset that does not say the stream is gone (the reader could not
// follow the topic: broker-full, stream-refused) leaves its epoch going on:
// once the reader follows it again, from the stream's newest, its events
// are delivered, and what was published while nobody here read it is told
// as lost, after the reset told once.
TEST_F(StreamTopicTest, AfterABrokerFullResetTheSameStreamReadAgainIsDeliveredAndTheSkippedStretchToldLost) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 7);
  append(kEpoch, 8, "before");
  book.stream_reset("t", "broker-full", StreamAfterReset::read_on);
  pump();
  ASSERT_EQ(c.resets, (std::vector<std::string>{"broker-full"}));
  EXPECT_EQ(book.follow_state("t").epoch, 0u) << "not read while the reader does not follow it";

  // Followed again once there is room: 9..12 went by meanwhile.
  EXPECT_EQ(book.stream_started("t", kEpoch, 12), 12u);
  EXPECT_EQ(append(kEpoch, 13, "after"), TopicBook::Append::accepted);
  EXPECT_EQ(append(kEpoch, 14, "next"), TopicBook::Append::accepted);
  ASSERT_EQ(c.ids, (std::vector<std::uint64_t>{8, 13, 14}));
  EXPECT_EQ(text(c.frames[1]), "id: mx4qgqmb:13\ndata: after\n\n");
  ASSERT_EQ(c.losses.size(), 1u);
  EXPECT_EQ(c.losses[0], (std::pair<std::uint64_t, std::uint64_t>{9, 12}));
  EXPECT_EQ(c.resets.size(), 1u) << "told once";
  EXPECT_EQ(book.follow_state("t").epoch, kEpoch);
  EXPECT_EQ(book.follow_state("t").last, 14u);
}

// A loop that drains only after the reader followed the topic again still
// tells the reset: the rebase that came after it does not hide it.
TEST_F(StreamTopicTest, ALoopThatDrainsOnlyAfterTheReaderIsBackIsToldTheResetAndTheLoss) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 7);
  append(kEpoch, 8, "before");
  book.stream_reset("t", "stream-refused", StreamAfterReset::read_on);
  EXPECT_EQ(book.stream_started("t", kEpoch, 10), 10u);
  (void)book.append("t", kEpoch, 11, {"after"}, nullptr);
  pump();
  EXPECT_EQ(c.resets, (std::vector<std::string>{"stream-refused"}));
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{8, 11}));
  ASSERT_EQ(c.losses.size(), 1u);
  EXPECT_EQ(c.losses[0], (std::pair<std::uint64_t, std::uint64_t>{9, 10}));
}

// A key Redis refused is not read: a subscriber that joins after is told
// so in its answer, not left waiting, and has the reader try the key again;
// the one told already is not told a second time when it is refused again.
// Once read, a newcomer is told nothing.
TEST_F(StreamTopicTest, ASubscriberJoiningARefusedTopicIsToldAndHasItTriedAgain) {
  ResetCollector first;
  ASSERT_EQ(hub.subscribe("t", &first), HubStatus::ok);
  book.stream_reset("t", "stream-refused", StreamAfterReset::refused);
  pump();
  ResetCollector later;
  const ReplayResult joined = hub.subscribe_after("t", &later, 0, "");
  ASSERT_EQ(joined.status, HubStatus::ok);
  ASSERT_NE(joined.reset, nullptr);
  EXPECT_STREQ(joined.reset, "stream-refused");
  EXPECT_FALSE(joined.awaiting);
  EXPECT_EQ(follower.retries, (std::vector<std::string>{"t"}));
  book.stream_reset("t", "stream-refused", StreamAfterReset::refused);
  pump();
  EXPECT_EQ(first.resets, (std::vector<std::string>{"stream-refused"})) << "told once";
  EXPECT_TRUE(later.resets.empty()) << "told in its answer";

  (void)book.stream_started("t", kEpoch, 3);
  ResetCollector after;
  const ReplayResult read = hub.subscribe_after("t", &after, 0, "");
  EXPECT_EQ(read.reset, nullptr);
  EXPECT_EQ(follower.retries.size(), 1u);
  EXPECT_EQ(append(kEpoch, 4, "read"), TopicBook::Append::accepted);
  for (ResetCollector* c : {&first, &later, &after}) EXPECT_EQ(c->ids, (std::vector<std::uint64_t>{4}));
}

// A client resuming from an id ahead of what the node read, on a topic
// whose key is refused, is told the refusal, and so is owed what comes
// after now: the next stream's first events reach it (they were skipped up
// to its old id).
TEST_F(StreamTopicTest, AClientAheadOfARefusedTopicGetsTheNextStreamFromItsStart) {
  ResetCollector first;
  ASSERT_EQ(hub.subscribe("t", &first), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 3);
  EXPECT_EQ(append(kEpoch, 4, "old"), TopicBook::Append::accepted);
  book.stream_reset("t", "stream-refused", StreamAfterReset::refused);
  pump();
  ResetCollector ahead;
  const ReplayResult joined = hub.subscribe_after("t", &ahead, 0, "mx4qgqmb:9");
  ASSERT_EQ(joined.status, HubStatus::ok);
  EXPECT_STREQ(joined.reset, "stream-refused");
  // One resuming from an id of another stream is told the refusal too, not
  // other-epoch.
  ResetCollector other;
  EXPECT_STREQ(hub.subscribe_after("t", &other, 0, "mx4qgqma:2").reset, "stream-refused");
  (void)book.stream_started("t", kLaterEpoch, 0);
  EXPECT_EQ(append(kLaterEpoch, 1, "new"), TopicBook::Append::accepted);
  EXPECT_EQ(ahead.ids, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(first.ids, (std::vector<std::uint64_t>{4, 1}));
}

// Redis came back from an older copy: the same stream goes on after its
// newest (8), and the ids after it are new events', delivered after the
// reset with nothing told lost.
TEST_F(StreamTopicTest, ARewoundStreamGoesOnUnderItsEpochAfterItsNewest) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 7);
  for (std::uint64_t seq = 8; seq <= 10; ++seq) append(kEpoch, seq, "old");
  book.stream_reset("t", "stream-rewound", StreamAfterReset::read_on);
  EXPECT_EQ(append(kEpoch, 9, "new 9"), TopicBook::Append::accepted);
  EXPECT_EQ(append(kEpoch, 10, "new 10"), TopicBook::Append::accepted);
  EXPECT_EQ(append(kEpoch, 11, "new 11"), TopicBook::Append::accepted);
  EXPECT_EQ(c.resets, (std::vector<std::string>{"stream-rewound"}));
  ASSERT_EQ(c.ids, (std::vector<std::uint64_t>{8, 9, 10, 9, 10, 11}));
  EXPECT_EQ(text(c.frames[3]), "id: mx4qgqmb:9\ndata: new 9\n\n");
  EXPECT_TRUE(c.losses.empty());
}

// A stream gone stays gone: a reset after it that would read on does not
// bring its epoch back, and its late events are passed over.
TEST_F(StreamTopicTest, AStreamGoneIsNotReadOnByALaterReset) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 7);
  append(kEpoch, 8, "old");
  book.stream_reset("t", "stream-lost", StreamAfterReset::gone);
  book.stream_reset("t", "broker-full", StreamAfterReset::read_on);
  (void)book.stream_started("t", kEpoch, 12);
  append(kEpoch, 13, "late copy of the lost stream");
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{8}));
  append(kLaterEpoch, 1, "new");
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{8, 1}));
  EXPECT_EQ(c.resets, (std::vector<std::string>{"stream-lost"}));
}

// A client resuming on a node whose reader has not found the stream yet
// sets where the topic starts: the reader is sent back to the client's id
// (stream_started answers it), and the client gets exactly what follows.
TEST_F(StreamTopicTest, AResumeBeforeTheReaderFoundTheStreamSetsWhereTheTopicStarts) {
  ResetCollector resumed;
  const ReplayResult r = hub.subscribe_after("t", &resumed, 0, "mx4qgqmb:5");
  EXPECT_EQ(r.reset, nullptr);
  EXPECT_FALSE(r.parked);
  EXPECT_EQ(r.newest, 5u);
  // No place the reader read to: it locates the stream, and the client's id
  // is judged against what it finds.
  EXPECT_TRUE(book.follow_state("t").followed);
  EXPECT_EQ(book.follow_state("t").epoch, 0u);
  EXPECT_EQ(book.follow_state("t").last, 0u);
  // The reader located the stream at 9: it reads from 5.
  EXPECT_EQ(book.stream_started("t", kEpoch, 9), 5u);
  for (std::uint64_t seq = 6; seq <= 10; ++seq) append(kEpoch, seq, "e");
  EXPECT_EQ(resumed.ids, (std::vector<std::uint64_t>{6, 7, 8, 9, 10}));
  EXPECT_TRUE(resumed.resets.empty());
  EXPECT_TRUE(resumed.losses.empty());
}

// A client come from a node whose reader is ahead resumes here at an id
// this node's reader has not reached: it is owed what follows its id, with
// no reset and nothing handed twice, once the reader gets there. An id
// further ahead than the replay window is not of this stream.
TEST_F(StreamTopicTest, AResumeAheadOfThisNodesReaderIsOwedWhatFollowsItsId) {
  ResetCollector here;
  ASSERT_EQ(hub.subscribe("t", &here), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 0);
  for (std::uint64_t seq = 1; seq <= 14; ++seq) append(kEpoch, seq, "e");

  ResetCollector resumed;
  const ReplayResult r = hub.subscribe_after("t", &resumed, 0, "mx4qgqmb:20");
  EXPECT_EQ(r.reset, nullptr);
  EXPECT_FALSE(r.parked);
  EXPECT_EQ(r.replayed, 0u);
  EXPECT_EQ(r.newest, 20u);
  for (std::uint64_t seq = 15; seq <= 25; ++seq) append(kEpoch, seq, "e");
  EXPECT_EQ(resumed.ids, (std::vector<std::uint64_t>{21, 22, 23, 24, 25}));
  EXPECT_TRUE(resumed.resets.empty());
  EXPECT_TRUE(resumed.losses.empty());

  ResetCollector far;
  const std::string too_far = "mx4qgqmb:" + std::to_string(25 + book.limits().history_events + 1);
  EXPECT_STREQ(hub.subscribe_after("t", &far, 0, too_far).reset, "unknown-id");
}

TEST_F(StreamTopicTest, AResumePointTheStreamDoesNotHaveIsAReset) {
  ResetCollector ahead;
  ASSERT_EQ(hub.subscribe_after("t", &ahead, 0, "mx4qgqmb:20").reset, nullptr);
  EXPECT_EQ(book.stream_started("t", kEpoch, 9), 9u);  // the stream never reached 20
  append(kEpoch, 10, "e");
  EXPECT_EQ(ahead.resets, (std::vector<std::string>{"unknown-id"}));
  EXPECT_EQ(ahead.ids, (std::vector<std::uint64_t>{10}));
}

TEST_F(StreamTopicTest, AResumePointOfAStreamRedisNoLongerHasIsAReset) {
  ResetCollector gone;
  ASSERT_EQ(hub.subscribe_after("t", &gone, 0, "mx4qgqmb:20").reset, nullptr);
  EXPECT_EQ(book.stream_started("t", 0, 0), 0u);  // no stream at all
  pump();
  EXPECT_EQ(gone.resets, (std::vector<std::string>{"stream-lost"}));
  append(kLaterEpoch, 1, "new");
  EXPECT_EQ(gone.ids, (std::vector<std::uint64_t>{1}));
}

// Records, in order, where it was placed and each event it was handed.
struct PlaceCollector : ResetCollector {
  std::vector<std::string> log;
  void placed(std::uint32_t, std::uint64_t epoch, std::uint64_t newest) override {
    log.push_back("placed " + std::to_string(epoch) + ":" + std::to_string(newest));
  }
  void deliver(const Delivery& d) override {
    Collector::deliver(d);
    log.push_back("event " + std::to_string(d.id));
  }
  void reset(std::uint32_t cookie, const char* reason) override {
    ResetCollector::reset(cookie, reason);
    log.push_back(std::string("reset ") + reason);
  }
};

// A subscriber with no id joins before the reader knows where the topic
// stands: it awaits the place, hears it before the first event, and is
// owed what comes after it. One that joins later is answered at once.
TEST_F(StreamTopicTest, ASubscriberWithNoIdAwaitsThePlaceAndHearsItBeforeAnyEvent) {
  PlaceCollector c;
  const ReplayResult r = hub.subscribe_after("t", &c, 0, "");
  EXPECT_TRUE(r.awaiting);
  pump();
  EXPECT_TRUE(c.log.empty());
  (void)book.stream_started("t", kEpoch, 41);
  append(kEpoch, 42, "a");
  EXPECT_EQ(c.log, (std::vector<std::string>{"placed " + std::to_string(kEpoch) + ":41", "event 42"}));
  PlaceCollector later;
  const ReplayResult joined = hub.subscribe_after("t", &later, 0, "");
  EXPECT_FALSE(joined.awaiting);
  EXPECT_EQ(joined.stream_epoch, kEpoch);
  EXPECT_EQ(joined.newest, 42u);
}

// A stream that does not exist yet is a place too: everything it will
// hold is owed.
TEST_F(StreamTopicTest, NoStreamYetIsAPlaceFromItsFirstEvent) {
  PlaceCollector c;
  ASSERT_TRUE(hub.subscribe_after("t", &c, 0, "").awaiting);
  (void)book.stream_started("t", 0, 0);
  pump();
  append(kEpoch, 1, "first");
  EXPECT_EQ(c.log, (std::vector<std::string>{"placed 0:0", "event 1"}));
}

// A reset before the place (the reader could not follow the topic): the
// subscriber is answered, then told why nothing comes.
TEST_F(StreamTopicTest, AResetBeforeThePlaceAnswersTheSubscriberThenTellsIt) {
  PlaceCollector c;
  ASSERT_TRUE(hub.subscribe_after("t", &c, 0, "").awaiting);
  book.stream_reset("t", "broker-full", StreamAfterReset::read_on);
  pump();
  EXPECT_EQ(c.log, (std::vector<std::string>{"placed 0:0", "reset broker-full"}));
}

// Once the reader lets the topic go it is no longer placed: a subscriber
// that comes then waits for the next place, which the reader's check of
// the stream gives (the stream's newest, here past the kept events: what
// came between is not the newcomer's, nor is its loss). A loop that
// follows it again before the reader lets go keeps it placed.
TEST_F(StreamTopicTest, ATopicTheReaderLetGoIsPlacedAgainBeforeANewSubscriberIsAnswered) {
  PlaceCollector first;
  ASSERT_EQ(hub.subscribe("t", &first), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 3);
  append(kEpoch, 4, "kept");
  hub.unsubscribe("t", &first);
  PlaceCollector back;
  ASSERT_FALSE(hub.subscribe_after("t", &back, 0, "").awaiting);
  EXPECT_FALSE(book.reader_leaves("t")) << "followed again: still read";
  hub.unsubscribe("t", &back);
  EXPECT_TRUE(book.reader_leaves("t"));
  PlaceCollector next;
  ASSERT_TRUE(hub.subscribe_after("t", &next, 0, "").awaiting);
  book.stream_placed("t", kEpoch, 9);
  pump();
  EXPECT_EQ(next.log, (std::vector<std::string>{"placed " + std::to_string(kEpoch) + ":9"}));
  append(kEpoch, 8, "read on from the kept event; 5..7 trimmed");
  append(kEpoch, 9, "before the place");
  append(kEpoch, 10, "after");
  EXPECT_EQ(next.log, (std::vector<std::string>{"placed " + std::to_string(kEpoch) + ":9", "event 10"}));
  EXPECT_TRUE(next.losses.empty());
}

// broker-full: the reader stopped. The subscriber there is told once; the
// topic is read again from the last id the node had (5), so it gets what
// Redis still holds (8 on) and is told lost only what Redis trimmed (6, 7).
// One that joined while stopped waits for the place the reader finds (9)
// and gets only what follows it.
TEST_F(StreamTopicTest, AStoppedTopicIsReadAgainFromTheLastIdTheNodeHad) {
  PlaceCollector there;
  ASSERT_EQ(hub.subscribe("t", &there), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 3);
  append(kEpoch, 4, "4");
  append(kEpoch, 5, "5");
  book.stream_reset("t", "broker-full", StreamAfterReset::stopped);
  pump();
  const TopicBook::FollowState state = book.follow_state("t");
  EXPECT_TRUE(state.stopped);
  EXPECT_EQ(state.epoch, kEpoch);
  EXPECT_EQ(state.last, 5u);
  PlaceCollector joined;
  ASSERT_TRUE(hub.subscribe_after("t", &joined, 0, "").awaiting) << "stopped: the place is to come";
  pump();
  book.stream_reset("t", "broker-full", StreamAfterReset::stopped);  // tried again, still full
  pump();

  ASSERT_TRUE(book.reader_follows_again("t"));
  EXPECT_FALSE(book.follow_state("t").stopped);
  pump();
  EXPECT_TRUE(joined.log.empty()) << "not placed before the reader has checked the stream";
  book.stream_placed("t", kEpoch, 9);
  append(kEpoch, 8, "8");
  append(kEpoch, 9, "9");
  append(kEpoch, 10, "10");
  EXPECT_EQ(there.resets, (std::vector<std::string>{"broker-full"})) << "told once";
  EXPECT_EQ(there.ids, (std::vector<std::uint64_t>{4, 5, 8, 9, 10}));
  EXPECT_EQ(there.losses, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{6, 7}}));
  EXPECT_EQ(joined.log, (std::vector<std::string>{"placed " + std::to_string(kEpoch) + ":9", "event 10"}));
  EXPECT_TRUE(joined.losses.empty());
}

// A stream Redis rewound while the topic was stopped: reading again from
// the last id had finds it shorter, a reset of its own, told as a second
// notice; the rewound stream's next ids follow.
TEST_F(StreamTopicTest, AStreamRewoundWhileStoppedIsASecondReset) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 3);
  append(kEpoch, 4, "4");
  book.stream_reset("t", "broker-full", StreamAfterReset::stopped);
  pump();
  ASSERT_TRUE(book.reader_follows_again("t"));
  book.stream_reset("t", "stream-rewound", StreamAfterReset::read_on);
  pump();
  append(kEpoch, 3, "a new event under an old id");
  EXPECT_EQ(c.resets, (std::vector<std::string>{"broker-full", "stream-rewound"}));
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{4, 3}));
  EXPECT_TRUE(c.losses.empty());
}

// After a reset the lost stream is nobody's place: a subscriber that joins
// before the next stream is read is told of no stream (its /ws ack then
// names no id), whether it is answered at once or was awaiting the place
// that the reset gave. The next stream's epoch is named once it is read.
TEST_F(StreamTopicTest, AfterAResetTheLostStreamIsNotNamedAsThePlace) {
  PlaceCollector kept;
  ASSERT_EQ(hub.subscribe("t", &kept), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 7);
  append(kEpoch, 8, "old");
  book.stream_reset("t", "stream-lost", StreamAfterReset::gone);
  pump();
  PlaceCollector joined_now;
  const ReplayResult now = hub.subscribe_after("t", &joined_now, 0, "");
  EXPECT_FALSE(now.awaiting);
  EXPECT_EQ(now.stream_epoch, 0u);
  EXPECT_EQ(now.newest, 0u);
  append(kLaterEpoch, 1, "new");
  PlaceCollector after_new;
  const ReplayResult later = hub.subscribe_after("t", &after_new, 0, "");
  EXPECT_EQ(later.stream_epoch, kLaterEpoch);
  EXPECT_EQ(later.newest, 1u);

  // Awaiting: the topic was let go with a kept stream, and the reader's
  // follow ends in a reset.
  hub.unsubscribe("t", &kept);
  hub.unsubscribe("t", &joined_now);
  hub.unsubscribe("t", &after_new);
  ASSERT_TRUE(book.reader_leaves("t"));
  PlaceCollector waiting;
  ASSERT_TRUE(hub.subscribe_after("t", &waiting, 0, "").awaiting);
  book.stream_reset("t", "broker-full", StreamAfterReset::read_on);
  pump();
  EXPECT_EQ(waiting.log, (std::vector<std::string>{"placed 0:0", "reset broker-full"}));
}

// A broker's reset cuts the history whatever the loops have delivered, so
// a drain under a broker counts the events it copied out: one cut while
// the drain delivers them is still whole for the rest of it.
TEST_F(StreamTopicTest, AResetDuringADrainLeavesTheDrainsEventsWhole) {
  ResetCollector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  (void)book.stream_started("t", kEpoch, 7);
  ASSERT_EQ(book.append("t", kEpoch, 8, {"first"}, nullptr), TopicBook::Append::accepted);
  ASSERT_EQ(book.append("t", kEpoch, 9, {"second"}, nullptr), TopicBook::Append::accepted);
  std::vector<std::uint32_t> counts;
  c.on_deliver = [&] {
    counts.push_back(c.frames.back().use_count());
    if (c.ids.size() == 1) book.stream_reset("t", "stream-lost", StreamAfterReset::gone);
  };
  std::vector<TopicRecord*> news;
  news.swap(watcher.changed);  // the reset tells the watcher again, mid-drain
  for (TopicRecord* record : news) hub.drain(record);
  ASSERT_EQ(c.ids, (std::vector<std::uint64_t>{8, 9}));
  // Before the reset: the history's, the drain's and the collector's; after
  // it, the drain's and the collector's.
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{3, 2}));
  EXPECT_EQ(text(c.frames[1]), "id: mx4qgqmb:9\ndata: second\n\n");
  pump();
  EXPECT_EQ(c.resets, (std::vector<std::string>{"stream-lost"}));
  EXPECT_EQ(c.frames[1].use_count(), 1u);
}

}  // namespace
}  // namespace sluice::hub::test
