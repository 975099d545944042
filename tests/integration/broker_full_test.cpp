// What a node's subscribers see when its reader cannot follow their topic
// (broker.read_max_topics reached: broker-full), with a real redis-server
// and real sluiced nodes: the subscribers there are told, the topic is
// read again once the reader lets another topic go, from the last id the
// node had, so they get every event Redis still holds and are told lost
// only what Redis trimmed meanwhile, by the stream's ids; a stream Redis
// rewound meanwhile is told as a reset of its own; and a subscriber that
// joined while the topic was not read is owed what comes after its answer
// and told of no gap from before it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

std::string epoch_of(const std::string& id) { return id.substr(0, id.find(':')); }

// Node A reads one topic at most (one loop, broker.read_max_topics=1); B
// publishes. stop() leaves A with "full" stopped: A read it up to
// `last_had`, let it go, took "other" instead, and `held` subscribed to
// "full" and was told broker-full.
class BrokerFull : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.ok()) << redis_.error();
    std::vector<std::string> settings = node_settings(redis_);
    settings.emplace_back("threads=1");
    settings.emplace_back("broker.read_max_topics=1");
    settings.emplace_back("broker.placement_timeout_ms=1000");
    a_ = std::make_unique<SluicedProcess>(settings);
    b_ = std::make_unique<SluicedProcess>(node_settings(redis_));
    ASSERT_NE(a_->port(), 0) << a_->output();
    ASSERT_NE(b_->port(), 0) << b_->output();
  }

  void stop(int published_before) {
    // B answers 503 until its link to Redis is up.
    const auto deadline = BrokerClock::now() + 10s;
    for (int i = 1; i <= published_before && BrokerClock::now() < deadline;) {
      if (publish_on(*b_, "full", "before").status == 200) ++i;
    }
    auto first = once_read(*a_, *b_, "full");
    ASSERT_NE(first, nullptr) << "A reads full";
    // The probe it got is the newest event of the stream, so the last A had.
    last_had_ = first->events().back().id;
    first.reset();
    other_ = once_read(*a_, *b_, "other");
    ASSERT_NE(other_, nullptr) << "A reads other";
    held_ = std::make_unique<SseSubscriber>(a_->port(), "/sse/full");
    ASSERT_TRUE(held_->opened());
    ASSERT_TRUE(first_news(*b_, "full", *held_, 10s));
    ASSERT_EQ(held_->events().front().type, "sluice-reset") << held_->events().front().data;
    ASSERT_NE(held_->events().front().data.find("broker-full"), std::string::npos) << held_->events().front().data;
  }

  void publish_run(const std::string& prefix, int count, std::vector<std::string>& data,
                   std::vector<std::string>& ids) {
    for (int i = 1; i <= count; ++i) {
      const Published p = publish_on(*b_, "full", prefix + std::to_string(i));
      ASSERT_EQ(p.status, 200);
      data.push_back(prefix + std::to_string(i));
      ids.push_back(p.id);
    }
  }

  RedisServer redis_;
  std::unique_ptr<SluicedProcess> a_, b_;
  std::string last_had_;
  std::unique_ptr<SseSubscriber> other_, held_;
};

// Everything Redis holds after the last id A had comes, in order, once,
// with no notice: the probes published while A did not read the topic,
// then the events published after.
TEST_F(BrokerFull, AStoppedTopicIsReadAgainFromTheLastIdTheNodeHadOnceTheReaderHasRoom) {
  ASSERT_NO_FATAL_FAILURE(stop(0));
  std::vector<std::string> data, ids;
  ASSERT_NO_FATAL_FAILURE(publish_run("kept ", 5, data, ids));
  other_.reset();  // the reader lets "other" go, and has room for "full"
  ASSERT_TRUE(wait_data(*held_, "kept 5", 10s)) << "the topic is read again";

  const auto& got = held_->events();
  std::uint64_t expected = seq_of(last_had_) + 1;
  for (std::size_t i = 1; i < got.size(); ++i, ++expected) {
    ASSERT_EQ(got[i].type, "message") << "no notice: Redis held every event; " << got[i].data;
    EXPECT_EQ(epoch_of(got[i].id), epoch_of(last_had_)) << got[i].id;
    EXPECT_EQ(seq_of(got[i].id), expected) << "every id after the last A had, in order, once";
  }
  EXPECT_EQ(got.back().id, ids.back());
  EXPECT_EQ(got.back().data, data.back());
}

// Redis trims the stream (exactly, to its last two events) while A does not
// read it. The subscriber that was there is told lost exactly the ids Redis
// no longer holds, from the one after the last A had to the one before the
// oldest kept, then gets the kept ones. A subscriber that joined while the
// topic was stopped gets its answer once the topic is read again, then
// exactly what is published after it, and no notice.
TEST_F(BrokerFull, OnlyWhatRedisTrimmedWhileStoppedIsToldLostAndOnlyToWhoWasThere) {
  ASSERT_NO_FATAL_FAILURE(stop(0));
  auto joined = std::make_unique<SseSubscriber>(a_->port(), "/sse/full");
  std::vector<std::string> data, ids;
  ASSERT_NO_FATAL_FAILURE(publish_run("kept ", 5, data, ids));
  const ReplyPtr trimmed = redis_.command({"XTRIM", "sluice:full", "MAXLEN", "2"});
  ASSERT_TRUE(trimmed && trimmed->type == REDIS_REPLY_INTEGER && trimmed->integer > 0);
  other_.reset();
  ASSERT_TRUE(joined->opened()) << "answered once the topic is read again";
  ASSERT_TRUE(wait_data(*held_, "kept 5", 10s));

  const auto& got = held_->events();
  ASSERT_EQ(got.size(), 4U) << "the reset, the loss, kept 4, kept 5";
  ASSERT_EQ(got[1].type, "sluice-dropped") << got[1].data;
  const std::string first = field_of(got[1].data, "first_id");
  EXPECT_EQ(epoch_of(first), epoch_of(last_had_)) << got[1].data;
  EXPECT_EQ(seq_of(first), seq_of(last_had_) + 1) << got[1].data;
  EXPECT_EQ(field_of(got[1].data, "last_id"), ids[2]) << "kept 3 is the last Redis no longer holds";
  expect_exactly({got[2], got[3]}, {data[3], data[4]}, {ids[3], ids[4]}, "the events Redis held");

  const Published after = publish_on(*b_, "full", "after");
  ASSERT_EQ(after.status, 200);
  ASSERT_TRUE(wait_data(*joined, "after", 10s));
  expect_exactly(joined->events(), {"after"}, {after.id}, "joined while stopped");
}

// Redis comes back from an older copy of the stream while A does not read
// it (the same epoch, ending before the last id A had). Reading again from
// that id finds the stream shorter: the subscriber told broker-full is told
// a second reset, stream-rewound, since the ids that follow are new events'.
TEST_F(BrokerFull, AStreamRewoundWhileStoppedIsToldAsASecondReset) {
  ASSERT_NO_FATAL_FAILURE(stop(5));
  ASSERT_GT(seq_of(last_had_), 2U);
  const ReplyPtr oldest = redis_.command({"XRANGE", "sluice:full", "-", "+", "COUNT", "1"});
  ASSERT_TRUE(oldest && oldest->type == REDIS_REPLY_ARRAY && oldest->elements == 1);
  const std::string id(oldest->element[0]->element[0]->str, oldest->element[0]->element[0]->len);
  const std::string ms = id.substr(0, id.find('-'));
  ASSERT_TRUE(redis_.command({"DEL", "sluice:full"}));
  for (const char* seq : {"-1", "-2"}) {
    ASSERT_TRUE(redis_.command({"XADD", "sluice:full", ms + seq, "d", "old", "e", "", "k", ""}));
  }
  other_.reset();
  const auto deadline = BrokerClock::now() + 10s;
  while (held_->events().size() < 2 && BrokerClock::now() < deadline) held_->wait_for(2, 300ms);
  ASSERT_EQ(held_->events().size(), 2U) << "told the rewind";
  EXPECT_EQ(held_->events()[1].type, "sluice-reset") << held_->events()[1].data;
  EXPECT_NE(held_->events()[1].data.find("stream-rewound"), std::string::npos) << held_->events()[1].data;

  const Published next = publish_on(*b_, "full", "new");
  ASSERT_EQ(next.status, 200);
  EXPECT_EQ(seq_of(next.id), 3U) << "the rewound stream goes on after its newest";
  ASSERT_TRUE(wait_data(*held_, "new", 10s));
  ASSERT_EQ(held_->events().size(), 3U);
  expect_exactly({held_->events()[2]}, {"new"}, {next.id}, "after the rewind");
}

// A newcomer to a topic that stays stopped (A keeps reading "other") waits
// for a place that does not come, and past broker.placement_timeout_ms is
// refused as while Redis is away: 503, Retry-After, the key named; it never
// had a head, so it was told no gap.
TEST_F(BrokerFull, ANewcomerToATopicThatStaysStoppedIsRefusedAfterThePlacementTimeout) {
  ASSERT_NO_FATAL_FAILURE(stop(0));
  const auto asked = BrokerClock::now();
  TestClient newcomer(a_->port());
  newcomer.send("GET /sse/full HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const HttpReply reply = read_reply(newcomer, 10s);
  EXPECT_GE(BrokerClock::now() - asked, 1000ms) << "answered before the timeout";
  EXPECT_EQ(reply.status, 503) << reply.head;
  EXPECT_NE(reply.head.find("Retry-After: 1\r\n"), std::string::npos) << reply.head;
  EXPECT_NE(reply.body.find("broker.placement_timeout_ms"), std::string::npos) << reply.body;
}

// broker.read_max_topics=1 on A: a subscriber of a second topic is told
// broker-full. Once every subscriber has left and a new one comes, the
// topic is followed again (the same stream, same epoch): the newcomer is
// placed at the stream's newest and gets exactly what is published after,
// with no notice of the events A did not read before it came.
TEST_F(BrokerFull, ANewcomerToATopicFollowedAgainIsToldOfNoLossFromBeforeItCame) {
  ASSERT_NO_FATAL_FAILURE(stop(0));
  held_.reset();
  other_.reset();
  auto back = once_read(*a_, *b_, "full");
  ASSERT_NE(back, nullptr) << "the same stream, followed again, is delivered";
  std::vector<std::string> data, ids;
  ASSERT_NO_FATAL_FAILURE(publish_run("after ", 3, data, ids));
  ASSERT_TRUE(wait_events(*back, 3, 10s));
  for (const auto& e : back->events()) EXPECT_NE(e.type, "sluice-dropped") << e.data;
  expect_exactly(events_of(*back), data, ids, "followed again");
}

}  // namespace
}  // namespace sluice::test
