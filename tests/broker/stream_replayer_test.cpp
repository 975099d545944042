#include "broker/stream_replayer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/continuity.hpp"
#include "broker/publish_script.hpp"
#include "redis_server.hpp"
#include "run_until.hpp"

namespace sluice::broker {
namespace {

using namespace std::chrono_literals;

struct Answers : ReplayHandler {
  struct One {
    ReplayStatus status;
    std::vector<std::string> data;
    std::vector<StreamId> ids;
    std::string reset;
  };
  std::vector<One> got;
  void on_replay(std::uint64_t, const ReplayAnswer& a) override {
    One one{a.status, {}, {}, a.reset != nullptr ? a.reset : ""};
    for (const StreamEntry& e : a.entries) {
      one.data.emplace_back(e.data);
      one.ids.push_back(e.id);
    }
    got.push_back(one);
  }
};

class StreamReplayerTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis.ok()) << redis.error();
    ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  }

  StreamId publish(const std::string& topic, const std::string& data) {
    const test::ReplyPtr r =
        redis.command({"EVAL", std::string(kPublishScript), "1", "sluice:" + topic, "1000", data, "", ""});
    if (r == nullptr || r->type != REDIS_REPLY_STRING) return {};
    return parse_stream_id(std::string_view(r->str, r->len)).value_or(StreamId{});
  }

  const Answers::One& ask(StreamId after, StreamId upto) {
    const std::size_t before = answers.got.size();
    EXPECT_EQ(replayer.replay("t", after, upto, answers, 0), ReplayStart::accepted);
    EXPECT_TRUE(test::run_until(loop, [&] { return answers.got.size() == before + 1; }));
    return answers.got.back();
  }

  test::RedisServer redis;
  io::Loop loop;
  RedisLink link{loop, Endpoint{"127.0.0.1", redis.port()}, LinkLimits{}, nullptr};
  StreamReplayer replayer{link, "sluice:", 50, 1 << 20};
  Answers answers;
};

TEST_F(StreamReplayerTest, GivesExactlyTheEventsAfterTheClientsIdUpToTheNodes) {
  std::vector<StreamId> ids;
  for (int i = 1; i <= 10; ++i) ids.push_back(publish("t", std::to_string(i)));
  const auto& one = ask(ids[2], ids[7]);
  EXPECT_EQ(one.status, ReplayStatus::ok);
  EXPECT_EQ(one.data, (std::vector<std::string>{"4", "5", "6", "7", "8"}));
  EXPECT_EQ(one.ids.front(), ids[3]);
  const auto& none = ask(ids[9], ids[9]);
  EXPECT_EQ(none.status, ReplayStatus::ok);
  EXPECT_TRUE(none.data.empty());
}

TEST_F(StreamReplayerTest, AnIdTrimmedAwayIsTooOld) {
  std::vector<StreamId> ids;
  for (int i = 1; i <= 10; ++i) ids.push_back(publish("t", std::to_string(i)));
  ASSERT_TRUE(redis.command({"XTRIM", "sluice:t", "MAXLEN", "4"}) != nullptr);
  const auto& one = ask(ids[1], ids[9]);
  EXPECT_EQ(one.status, ReplayStatus::reset);
  EXPECT_EQ(one.reset, kTooOld);
  EXPECT_TRUE(one.data.empty());
}

// After Redis restarted empty, an id of the old stream names nothing: the
// client is reset whether the node's position is of the old stream or the
// new one.
TEST_F(StreamReplayerTest, AnIdOfAStreamRedisLostIsAReset) {
  const StreamId old1 = publish("t", "1");
  const StreamId old2 = publish("t", "2");
  ASSERT_TRUE(redis.restart()) << redis.error();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up && link.times_up() == 2; }));
  const StreamId fresh = publish("t", "new");
  EXPECT_EQ(replayer.replay("t", old1, fresh, answers, 0), ReplayStart::other_epoch);
  // The node has not seen the new stream yet: the old ids name nothing.
  const auto& one = ask(old1, old2);
  EXPECT_EQ(one.status, ReplayStatus::reset);
  EXPECT_EQ(one.reset, kUnknownId);
}

TEST_F(StreamReplayerTest, AnIdNeverIssuedIsUnknown) {
  const StreamId id = publish("t", "1");
  const auto& one = ask(id.next().next(), id.next().next());
  EXPECT_EQ(one.status, ReplayStatus::reset);
  EXPECT_EQ(one.reset, kUnknownId);
}

// SEQ 0 is "before the first event": a client that saw nothing of the
// stream gets all of it, as from a single node.
TEST_F(StreamReplayerTest, SeqZeroIsBeforeTheFirstEvent) {
  publish("t", "1");
  const StreamId second = publish("t", "2");
  const auto& one = ask({second.epoch, 0}, second);
  EXPECT_EQ(one.status, ReplayStatus::ok);
  EXPECT_EQ(one.data, (std::vector<std::string>{"1", "2"}));
}

TEST_F(StreamReplayerTest, AStreamShorterThanTheNodesPositionIsRewound) {
  const StreamId id = publish("t", "1");
  const auto& one = ask(id, {id.epoch, id.seq + 3});
  EXPECT_EQ(one.status, ReplayStatus::reset);
  EXPECT_EQ(one.reset, kStreamRewound);
}

TEST_F(StreamReplayerTest, LongerThanTheReplayBoundIsTooOldWithoutAsking) {
  EXPECT_EQ(replayer.replay("t", {5, 1}, {5, 52}, answers, 0), ReplayStart::too_old);
  EXPECT_EQ(replayer.replay("t", {5, 9}, {5, 8}, answers, 0), ReplayStart::too_old);
  EXPECT_EQ(link.pending(), 0u);
}

TEST_F(StreamReplayerTest, UnreachableRedisIsAnsweredAtOnce) {
  ASSERT_TRUE(redis.kill());
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() != LinkState::up; }));
  EXPECT_EQ(replayer.replay("t", {5, 1}, {5, 2}, answers, 0), ReplayStart::unavailable);
  EXPECT_TRUE(answers.got.empty());
}

}  // namespace
}  // namespace sluice::broker
