#include "sluice/hub/hub.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/hub/topic_name.hpp"

namespace sluice::hub {
namespace {

struct Collector : Subscriber {
  std::vector<std::uint64_t> ids;
  std::vector<buf::FrameRef> frames;
  std::function<void()> on_deliver;
  void deliver(const Delivery& d) override {
    ids.push_back(d.id);
    frames.push_back(d.frames.sse());
    if (on_deliver) on_deliver();
  }
};

std::string text(const buf::FrameRef& f) {
  std::string out(f.size(), '\0');
  f.copy_to(out.data(), out.size());
  return out;
}

struct HubTest : testing::Test {
  buf::Pool pool{{.block_count = 64, .block_size = 256, .reserve = 4}};
  Hub hub{pool, {.max_topics = 3, .max_topic_name = 16, .max_subscribers_per_topic = 4}, "ep"};
};

TEST_F(HubTest, IdsIncreasePerTopic) {
  Collector c;
  ASSERT_EQ(hub.subscribe("a", &c), HubStatus::ok);
  EXPECT_EQ(hub.publish("a", {"1"}).id, 1u);
  EXPECT_EQ(hub.publish("b", {"x"}).id, 1u);
  EXPECT_EQ(hub.publish("a", {"2"}).id, 2u);
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(text(c.frames[1]), "id: ep:2\ndata: 2\n\n");
}

TEST_F(HubTest, OneFrameIsSharedByEverySubscriber) {
  Collector a, b, c;
  for (Collector* s : {&a, &b, &c}) ASSERT_EQ(hub.subscribe("t", s), HubStatus::ok);
  const PublishResult r = hub.publish("t", {"payload", "kind"});
  EXPECT_EQ(r.subscribers, 3u);
  EXPECT_TRUE(a.frames[0] == b.frames[0]);
  EXPECT_TRUE(b.frames[0] == c.frames[0]);
  EXPECT_EQ(a.frames[0].use_count(), 3u);
  EXPECT_EQ(text(a.frames[0]), "event: kind\nid: ep:1\ndata: payload\n\n");
}

TEST_F(HubTest, UnsubscribeStopsDelivery) {
  Collector a, b;
  ASSERT_EQ(hub.subscribe("t", &a), HubStatus::ok);
  ASSERT_EQ(hub.subscribe("t", &b), HubStatus::ok);
  hub.unsubscribe("t", &a);
  hub.unsubscribe("t", &a);
  hub.unsubscribe("nope", &a);
  (void)hub.publish("t", {"x"});
  EXPECT_TRUE(a.ids.empty());
  EXPECT_EQ(b.ids.size(), 1u);
  EXPECT_EQ(hub.subscriber_count("t"), 1u);
}

TEST_F(HubTest, SubscribersMayLeaveDuringAPublish) {
  Collector a, b, c;
  for (Collector* s : {&a, &b, &c}) ASSERT_EQ(hub.subscribe("t", s), HubStatus::ok);
  a.on_deliver = [&] {
    hub.unsubscribe("t", &a);
    hub.unsubscribe("t", &b);  // b has not been handed the event yet
  };
  EXPECT_EQ(hub.publish("t", {"x"}).subscribers, 2u);
  EXPECT_EQ(a.ids.size(), 1u);
  EXPECT_TRUE(b.ids.empty());
  EXPECT_EQ(c.ids.size(), 1u);
  EXPECT_EQ(hub.subscriber_count("t"), 1u);
  (void)hub.publish("t", {"y"});
  EXPECT_EQ(c.ids.size(), 2u);
}

TEST_F(HubTest, LimitsAreEnforced) {
  Collector s;
  EXPECT_EQ(hub.subscribe("bad name", &s), HubStatus::bad_topic);
  EXPECT_EQ(hub.subscribe(std::string(17, 'x'), &s), HubStatus::bad_topic);
  EXPECT_EQ(hub.publish("", {"x"}).status, HubStatus::bad_topic);
  EXPECT_EQ(hub.publish("t1", {"x", "bad\nevent"}).status, HubStatus::bad_event);
  EXPECT_EQ(hub.publish("t1", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(hub.publish("t2", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(hub.publish("t3", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(hub.publish("t4", {"x"}).status, HubStatus::too_many_topics);
  EXPECT_EQ(hub.topic_count(), 3u);
  Collector many[5];
  for (int i = 0; i < 4; ++i) EXPECT_EQ(hub.subscribe("t1", &many[i]), HubStatus::ok);
  EXPECT_EQ(hub.subscribe("t1", &many[4]), HubStatus::too_many_subscribers);
}

TEST_F(HubTest, EventThatDoesNotFitThePoolIsRefusedAndKeepsItsId) {
  Collector s;
  ASSERT_EQ(hub.subscribe("t", &s), HubStatus::ok);
  const PublishResult big = hub.publish("t", {std::string(64 * 256, 'x')});
  EXPECT_EQ(big.status, HubStatus::no_memory);
  EXPECT_TRUE(s.ids.empty());
  EXPECT_EQ(pool.free_blocks(), 64u);  // nothing leaked by the failed encode
  EXPECT_EQ(hub.publish("t", {"small"}).id, 1u);
}

TEST_F(HubTest, HistoryGivesWayWhenThePoolIsShort) {
  // 64 blocks of 256 bytes, 4 in reserve: history alone could starve data.
  for (int i = 0; i < 200; ++i) ASSERT_EQ(hub.publish("t", {std::string(200, 'h')}).status, HubStatus::ok);
  EXPECT_GE(pool.free_blocks(), 4u);
}

struct ReplayTest : testing::Test {
  buf::Pool pool{{.block_count = 256, .block_size = 256, .reserve = 4}};
  Hub hub{pool, {.history_events = 5, .history_bytes = 1 << 20}, "ep"};

  void publish(int n) {
    for (int i = 0; i < n; ++i) ASSERT_EQ(hub.publish("t", {"x"}).status, HubStatus::ok);
  }
};

TEST_F(ReplayTest, ReplaysTheEventsAfterTheIdThenGoesLive) {
  publish(8);
  Collector c;
  const ReplayResult r = hub.subscribe_after("t", &c, 7, "ep:5");
  EXPECT_EQ(r.reset, nullptr);
  EXPECT_EQ(r.replayed, 3u);
  publish(1);
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{6, 7, 8, 9}));
}

TEST_F(ReplayTest, TheOldestKeptEventCanStillBeResumedFrom) {
  publish(8);  // keeps 4..8
  Collector c;
  EXPECT_EQ(hub.subscribe_after("t", &c, 0, "ep:3").reset, nullptr);
  EXPECT_EQ(c.ids.size(), 5u);
  Collector up_to_date;
  const ReplayResult r = hub.subscribe_after("t", &up_to_date, 0, "ep:8");
  EXPECT_EQ(r.reset, nullptr);
  EXPECT_EQ(r.replayed, 0u);
}

TEST_F(ReplayTest, SaysWhyItCannotReplay) {
  publish(8);
  Collector c;
  EXPECT_STREQ(hub.subscribe_after("t", &c, 0, "ep:2").reset, "too-old");
  EXPECT_STREQ(hub.subscribe_after("t", &c, 0, "other:7").reset, "other-epoch");
  EXPECT_STREQ(hub.subscribe_after("t", &c, 0, "ep:9").reset, "unknown-id");
  EXPECT_STREQ(hub.subscribe_after("t", &c, 0, "17").reset, "malformed-id");
  EXPECT_STREQ(hub.subscribe_after("t", &c, 0, "ep:x").reset, "malformed-id");
  EXPECT_TRUE(c.ids.empty());
}

TEST_F(ReplayTest, HistoryIsBoundedByBytes) {
  Hub small{pool, {.history_events = 100, .history_bytes = 100}, "ep"};
  for (int i = 0; i < 10; ++i) ASSERT_EQ(small.publish("t", {std::string(20, 'b')}).status, HubStatus::ok);
  Collector c;
  EXPECT_STREQ(small.subscribe_after("t", &c, 0, "ep:5").reset, "too-old");
  Collector recent;
  EXPECT_EQ(small.subscribe_after("t", &recent, 0, "ep:9").replayed, 1u);
}

TEST(TopicName, Alphabet) {
  EXPECT_TRUE(valid_topic_name("sensors.room-1:temp_c", 64));
  EXPECT_FALSE(valid_topic_name("", 64));
  EXPECT_FALSE(valid_topic_name("a/b", 64));
  EXPECT_FALSE(valid_topic_name("é", 64));
  EXPECT_FALSE(valid_topic_name("abc", 2));
}

}  // namespace
}  // namespace sluice::hub
