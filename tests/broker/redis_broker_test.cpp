#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "broker/broker.hpp"
#include "broker/shard_map.hpp"
#include "redis_server.hpp"

namespace sluice::broker {
namespace {

using namespace std::chrono_literals;

struct Journal : StreamSink {
  std::map<std::string, std::vector<std::string>> events;
  std::map<std::string, StreamId> started;
  std::vector<std::string> remarks;  // gaps, resets, refusals
  std::size_t count = 0;
  void on_started(std::string_view topic, StreamId position) override { started[std::string(topic)] = position; }
  Take on_event(std::string_view topic, const StreamEntry& e) override {
    events[std::string(topic)].emplace_back(e.data);
    ++count;
    return Take::accepted;
  }
  void on_gap(std::string_view topic, StreamId, StreamId) override { remarks.push_back("gap " + std::string(topic)); }
  void on_reset(std::string_view topic, const char* r) override {
    remarks.push_back("reset " + std::string(topic) + r);
  }
  void on_refused(std::string_view topic, std::string_view) override {
    remarks.push_back("refused " + std::string(topic));
  }
};

struct Published : PublishHandler {
  std::vector<StreamId> ids;
  void on_published(std::uint64_t, PublishStatus status, StreamId id, std::string_view) override {
    EXPECT_EQ(status, PublishStatus::ok);
    ids.push_back(id);
  }
};

// Two loops of two nodes, turned in turn on this thread.
template <typename Condition>
bool run_both(io::Loop& a, io::Loop& b, Condition done) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    a.run_once(0);
    b.run_once(5);
  }
  return true;
}

BrokerConfig config_for(const test::RedisServer& one, const test::RedisServer& two) {
  BrokerConfig c;
  c.endpoints = {Endpoint{"127.0.0.1", one.port()}, Endpoint{"127.0.0.1", two.port()}};
  c.link.reconnect_min = 20ms;
  c.reader.block = 200ms;
  return c;
}

// A node publishes to forty topics; another node, following them, reads
// each in order from whichever of the two instances holds it, and each
// stream lives on the instance shard_of() names.
TEST(RedisBroker, TopicsSpreadOverInstancesAndReachAnotherNode) {
  test::RedisServer one;
  test::RedisServer two;
  ASSERT_TRUE(one.ok()) << one.error();
  ASSERT_TRUE(two.ok()) << two.error();
  const BrokerConfig config = config_for(one, two);
  io::Loop publisher_loop;
  io::Loop subscriber_loop;
  Journal publisher_side;
  Journal subscriber_side;
  const auto publishing = make_redis_broker(publisher_loop, config, publisher_side);
  const auto following = make_redis_broker(subscriber_loop, config, subscriber_side);
  constexpr int kTopics = 40;
  for (int t = 0; t < kTopics; ++t) ASSERT_EQ(following->follow("t" + std::to_string(t)), FollowStatus::ok);
  ASSERT_TRUE(run_both(publisher_loop, subscriber_loop, [&] { return subscriber_side.started.size() == kTopics; }));
  Published published;
  std::size_t sent = 0;
  ASSERT_TRUE(run_both(publisher_loop, subscriber_loop, [&] {
    while (sent < 3 * kTopics) {
      const std::string topic = "t" + std::to_string(sent % kTopics);
      if (publishing->publish(topic, {std::to_string(sent / kTopics), "", ""}, published, sent) != PublishStatus::ok) {
        return false;  // not up yet: try on the next turn
      }
      ++sent;
    }
    return true;
  }));
  ASSERT_TRUE(run_both(publisher_loop, subscriber_loop, [&] { return subscriber_side.count == 3 * kTopics; }));
  EXPECT_TRUE(subscriber_side.remarks.empty());
  int on_second = 0;
  for (int t = 0; t < kTopics; ++t) {
    const std::string topic = "t" + std::to_string(t);
    EXPECT_EQ(subscriber_side.events[topic], (std::vector<std::string>{"0", "1", "2"})) << topic;
    const std::size_t shard = shard_of(topic, 2);
    on_second += shard == 1;
    const test::ReplyPtr here = (shard == 0 ? one : two).command({"XLEN", "sluice:" + topic});
    const test::ReplyPtr there = (shard == 0 ? two : one).command({"XLEN", "sluice:" + topic});
    ASSERT_TRUE(here != nullptr && there != nullptr);
    EXPECT_EQ(here->integer, 3) << topic;
    EXPECT_EQ(there->integer, 0) << topic;
  }
  EXPECT_GT(on_second, kTopics / 4);
  EXPECT_LT(on_second, kTopics * 3 / 4);
}

// A client that saw event 2 on one node resumes on another: the replay
// gives 3..5, then the live stream goes on from 6.
TEST(RedisBroker, AClientResumesOnAnotherNodeWithExactlyWhatItMissed) {
  test::RedisServer one;
  test::RedisServer two;
  ASSERT_TRUE(one.ok() && two.ok());
  const BrokerConfig config = config_for(one, two);
  io::Loop a_loop;
  io::Loop b_loop;
  Journal a_side;
  Journal b_side;
  const auto a = make_redis_broker(a_loop, config, a_side);
  const auto b = make_redis_broker(b_loop, config, b_side);
  Published published;
  std::size_t sent = 0;
  ASSERT_TRUE(run_both(a_loop, b_loop, [&] {
    while (sent < 5 && a->publish("news", {std::to_string(sent + 1), "", ""}, published, sent) == PublishStatus::ok) {
      ++sent;
    }
    return published.ids.size() == 5;
  }));
  ASSERT_EQ(b->follow("news"), FollowStatus::ok);
  ASSERT_TRUE(run_both(a_loop, b_loop, [&] { return b_side.started.contains("news"); }));
  const StreamId position = b_side.started["news"];
  EXPECT_EQ(position, published.ids[4]);
  struct Replayed : ReplayHandler {
    std::vector<std::string> data;
    bool done = false;
    void on_replay(std::uint64_t, const ReplayAnswer& answer) override {
      EXPECT_EQ(answer.status, ReplayStatus::ok);
      for (const StreamEntry& e : answer.entries) data.emplace_back(e.data);
      done = true;
    }
  } replayed;
  ASSERT_EQ(b->replay("news", published.ids[1], position, replayed, 0), ReplayStart::accepted);
  ASSERT_TRUE(run_both(a_loop, b_loop, [&] { return replayed.done; }));
  EXPECT_EQ(replayed.data, (std::vector<std::string>{"3", "4", "5"}));
  ASSERT_EQ(a->publish("news", {"6", "", ""}, published, 6), PublishStatus::ok);
  ASSERT_TRUE(run_both(a_loop, b_loop, [&] { return b_side.count == 1 && published.ids.size() == 6; }));
  EXPECT_EQ(b_side.events["news"], (std::vector<std::string>{"6"}));
  EXPECT_EQ(published.ids[5], published.ids[4].next());
}

// A node that lists the instances in another order would put each topic
// where the others do not read it: every event it took would be lost to
// their subscribers without a word. The first node marks each instance
// with its index; one that finds another index there publishes nothing to
// it and says why, and one in the same order goes on.
TEST(RedisBroker, ANodeListingTheInstancesInAnotherOrderPublishesNothing) {
  test::RedisServer one;
  test::RedisServer two;
  ASSERT_TRUE(one.ok()) << one.error();
  ASSERT_TRUE(two.ok()) << two.error();
  const BrokerConfig config = config_for(one, two);
  BrokerConfig reversed = config;
  std::swap(reversed.endpoints[0], reversed.endpoints[1]);
  io::Loop first_loop;
  io::Loop other_loop;
  Journal first_side;
  Journal other_side;
  const auto first = make_redis_broker(first_loop, config, first_side);
  const auto marked = [](const test::RedisServer& redis, const char* mark) {
    const test::ReplyPtr got = redis.command({"GET", "sluice:$shard"});
    return got != nullptr && got->type == REDIS_REPLY_STRING && std::string(got->str, got->len) == mark;
  };
  ASSERT_TRUE(run_both(first_loop, other_loop, [&] { return marked(one, "0/2") && marked(two, "1/2"); }));
  const auto other = make_redis_broker(other_loop, reversed, other_side);
  const auto same = make_redis_broker(other_loop, config, other_side);
  // A topic on each instance: both of the reversed node's claims answered.
  std::string on[2];
  for (int i = 0; on[0].empty() || on[1].empty(); ++i) {
    const std::string name = "t" + std::to_string(i);
    on[shard_of(name, 2)] = name;
  }
  struct Ignored : PublishHandler {
    void on_published(std::uint64_t, PublishStatus, StreamId, std::string_view) override {}
  } ignored;
  ASSERT_TRUE(run_both(first_loop, other_loop, [&] {
    return other->publish(on[0], {"x", {}, {}}, ignored, 0) == PublishStatus::misplaced &&
           other->publish(on[1], {"x", {}, {}}, ignored, 0) == PublishStatus::misplaced && !same->unreachable() &&
           !first->unreachable();
  }));
  const std::optional<Unreachable> why = other->unreachable();
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(why->answers);
  EXPECT_NE(why->error.find("every node must list the same instances in the same order"), std::string::npos)
      << why->error;
  Published published;
  EXPECT_FALSE(first->unreachable().has_value());
  EXPECT_FALSE(same->unreachable().has_value());
  EXPECT_EQ(same->publish("t", {"x", {}, {}}, published, 0), PublishStatus::ok);
  ASSERT_TRUE(run_both(first_loop, other_loop, [&] { return published.ids.size() == 1; }));
}

// Another program's key where the mark goes (a hash, say): the order
// cannot be checked, and the node publishes nothing to that instance and
// says why, rather than going on unchecked.
TEST(RedisBroker, AMarkOfAnotherTypePublishesNothingThereAndSaysWhy) {
  test::RedisServer one;
  test::RedisServer two;
  ASSERT_TRUE(one.ok()) << one.error();
  ASSERT_TRUE(two.ok()) << two.error();
  ASSERT_TRUE(one.command({"HSET", "sluice:$shard", "a", "b"}) != nullptr);
  io::Loop loop;
  io::Loop idle;
  Journal side;
  const auto broker = make_redis_broker(loop, config_for(one, two), side);
  std::string on_one;
  for (int i = 0; on_one.empty(); ++i) {
    if (const std::string name = "t" + std::to_string(i); shard_of(name, 2) == 0) on_one = name;
  }
  struct Ignored : PublishHandler {
    void on_published(std::uint64_t, PublishStatus, StreamId, std::string_view) override {}
  } ignored;
  ASSERT_TRUE(run_both(loop, idle, [&] {
    return broker->publish(on_one, {"x", {}, {}}, ignored, 0) == PublishStatus::misplaced;
  }));
  const std::optional<Unreachable> why = broker->unreachable();
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->error.find("holds a key that is not a string"), std::string::npos) << why->error;
  // Deleted by the operator: the next publishes ask again and go, with no
  // reconnection needed.
  ASSERT_TRUE(one.command({"DEL", "sluice:$shard"}) != nullptr);
  ASSERT_TRUE(run_both(loop, idle, [&] {
    return broker->publish(on_one, {"x", {}, {}}, ignored, 0) == PublishStatus::ok;
  }));
  EXPECT_FALSE(broker->unreachable().has_value());
}

}  // namespace
}  // namespace sluice::broker
