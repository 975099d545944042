#include "broker/stream_publisher.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "link_test_kit.hpp"
#include "redis_server.hpp"
#include "run_until.hpp"

namespace sluice::broker {
namespace {

using namespace std::chrono_literals;

struct Outcomes : PublishHandler {
  struct One {
    std::uint64_t tag;
    PublishStatus status;
    StreamId id;
    std::string error;
  };
  std::vector<One> got;
  void on_published(std::uint64_t tag, PublishStatus status, StreamId id, std::string_view error) override {
    got.push_back({tag, status, id, std::string(error)});
  }
};

LinkLimits quick_limits_for_sixteen_pending() {
  LinkLimits l = test::quick_link_limits();
  l.max_pending = 16;
  return l;
}

class StreamPublisherTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis.ok()) << redis.error();
    ASSERT_TRUE(test::run_until(loop, [&] { return publisher.script_loads() == 1; })) << link.last_error();
  }

  std::size_t publish_and_wait(const std::string& topic, const EventFields& fields) {
    const std::size_t before = outcomes.got.size();
    EXPECT_EQ(publisher.publish(topic, fields, outcomes, before), PublishStatus::ok);
    EXPECT_TRUE(test::run_until(loop, [&] { return outcomes.got.size() == before + 1; }));
    return before;
  }

  test::RedisServer redis;
  io::Loop loop;
  LinkLimits limits = quick_limits_for_sixteen_pending();
  RedisLink link{loop, Endpoint{"127.0.0.1", redis.port()}, limits, nullptr};
  StreamPublisher publisher{link, "sluice:", 100};
  Outcomes outcomes;
};

TEST_F(StreamPublisherTest, NumbersATopicsEventsFromOneWithNoHoles) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(publisher.publish("t", {"d" + std::to_string(i), "", ""}, outcomes, i), PublishStatus::ok);
  }
  ASSERT_EQ(publisher.publish("u", {"other", "", ""}, outcomes, 9), PublishStatus::ok);
  ASSERT_TRUE(test::run_until(loop, [&] { return outcomes.got.size() == 6; }));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(outcomes.got[i].tag, static_cast<std::uint64_t>(i));
    EXPECT_EQ(outcomes.got[i].status, PublishStatus::ok);
    EXPECT_EQ(outcomes.got[i].id.seq, static_cast<std::uint64_t>(i + 1));
    EXPECT_EQ(outcomes.got[i].id.epoch, outcomes.got[0].id.epoch);
  }
  EXPECT_EQ(outcomes.got[5].id.seq, 1u);
  EXPECT_EQ(publisher.script_loads(), 1u);
}

TEST_F(StreamPublisherTest, StoresEveryFieldAndTrimsToAboutMaxLen) {
  const std::size_t i = publish_and_wait("f", {std::string("a\0b\r\n", 5), "price", "eur"});
  char id[kMaxStreamIdText];
  const std::string id_text(id, format_stream_id(outcomes.got[i].id, id));
  const test::ReplyPtr r = redis.command({"XRANGE", "sluice:f", id_text, id_text});
  ASSERT_TRUE(r != nullptr && r->type == REDIS_REPLY_ARRAY && r->elements == 1);
  const redisReply* fields = r->element[0]->element[1];
  ASSERT_EQ(fields->elements, 6u);
  EXPECT_EQ(std::string(fields->element[1]->str, fields->element[1]->len), std::string("a\0b\r\n", 5));
  EXPECT_EQ(std::string(fields->element[3]->str), "price");
  EXPECT_EQ(std::string(fields->element[5]->str), "eur");
  for (int batch = 0; batch < 40; ++batch) {  // 400 events, at most max_pending on the wire
    for (int n = 0; n < 10; ++n) ASSERT_EQ(publisher.publish("f", {"x", "", ""}, outcomes, 0), PublishStatus::ok);
    ASSERT_TRUE(test::run_until(loop, [&] { return outcomes.got.size() == 11u + 10u * batch; }));
  }
  const test::ReplyPtr length = redis.command({"XLEN", "sluice:f"});
  ASSERT_TRUE(length != nullptr);
  EXPECT_GE(length->integer, 100);
  EXPECT_LT(length->integer, 401);
}

// Redis forgot the script: that publish is refused (certainly not
// appended), the script is loaded again, and the next one goes in with the
// next id.
TEST_F(StreamPublisherTest, ReloadsTheScriptWhenRedisForgetsIt) {
  const std::size_t a = publish_and_wait("s", {"1", "", ""});
  ASSERT_TRUE(redis.command({"SCRIPT", "FLUSH"}) != nullptr);
  // Three sent together all find no script; one load serves them.
  for (int i = 0; i < 3; ++i) ASSERT_EQ(publisher.publish("s", {"lost", "", ""}, outcomes, 0), PublishStatus::ok);
  ASSERT_TRUE(test::run_until(loop, [&] { return outcomes.got.size() == a + 4; }));
  for (std::size_t b = a + 1; b <= a + 3; ++b) {
    EXPECT_EQ(outcomes.got[b].status, PublishStatus::refused);
    EXPECT_NE(outcomes.got[b].error.find("NOSCRIPT"), std::string::npos) << outcomes.got[b].error;
  }
  const std::size_t c = publish_and_wait("s", {"2", "", ""});
  EXPECT_EQ(outcomes.got[c].status, PublishStatus::ok);
  EXPECT_EQ(outcomes.got[c].id, outcomes.got[a].id.next());
  EXPECT_EQ(publisher.script_loads(), 2u);
}

TEST_F(StreamPublisherTest, AKeyThatIsNotAStreamIsRefused) {
  ASSERT_TRUE(redis.command({"SET", "sluice:plain", "x"}) != nullptr);
  const std::size_t i = publish_and_wait("plain", {"1", "", ""});
  EXPECT_EQ(outcomes.got[i].status, PublishStatus::refused);
  EXPECT_NE(outcomes.got[i].error.find("WRONGTYPE"), std::string::npos) << outcomes.got[i].error;
}

TEST_F(StreamPublisherTest, UnreachableRedisIsAnsweredAtOnce) {
  ASSERT_TRUE(redis.kill());
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() != LinkState::up; }));
  EXPECT_EQ(publisher.publish("t", {"x", "", ""}, outcomes, 1), PublishStatus::unavailable);
  EXPECT_TRUE(outcomes.got.empty());
  ASSERT_TRUE(redis.restart()) << redis.error();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; }));
  const std::size_t i = publish_and_wait("t", {"x", "", ""});
  EXPECT_EQ(outcomes.got[i].status, PublishStatus::ok);
}

// A stopped Redis: publishes wait at most broker.max_pending deep, are
// refused as busy past that, and the ones sent are answered `unknown` when
// their time runs out (they may have gone in).
TEST_F(StreamPublisherTest, StoppedRedisAnswersBusyThenUnknown) {
  redis.pause();
  std::size_t accepted = 0;
  while (publisher.publish("t", {"x", "", ""}, outcomes, accepted) == PublishStatus::ok) ++accepted;
  EXPECT_EQ(accepted, limits.max_pending);
  EXPECT_EQ(publisher.publish("t", {"x", "", ""}, outcomes, 0), PublishStatus::busy);
  ASSERT_TRUE(test::run_until(loop, [&] { return outcomes.got.size() == accepted; }));
  for (const auto& o : outcomes.got) EXPECT_EQ(o.status, PublishStatus::unknown);
  redis.resume();
}

}  // namespace
}  // namespace sluice::broker
