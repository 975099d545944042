#include "broker/stream_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "broker/continuity.hpp"
#include "broker/publish_script.hpp"
#include "link_test_kit.hpp"
#include "redis_server.hpp"
#include "run_until.hpp"

namespace sluice::broker {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string text(StreamId id) {
  char out[kMaxStreamIdText];
  return std::string(out, format_stream_id(id, out));
}

// Everything the reader told, one line each.
struct Journal : StreamSink {
  std::vector<std::string> lines;
  std::vector<StreamId> ids;
  std::string hold_data;  // an event with this data is held, once
  void on_started(std::string_view topic, StreamId position) override {
    lines.push_back("start " + std::string(topic) + " " + text(position));
  }
  Take on_event(std::string_view topic, const StreamEntry& e) override {
    if (!hold_data.empty() && e.data == hold_data) {
      hold_data.clear();
      lines.push_back("held " + std::string(topic) + " " + std::string(e.data));
      return Take::hold;
    }
    ids.push_back(e.id);
    lines.push_back("event " + std::string(topic) + " " + std::string(e.data));
    return Take::accepted;
  }
  void on_gap(std::string_view topic, StreamId first, StreamId last) override {
    lines.push_back("gap " + std::string(topic) + " " + text(first) + " " + text(last));
  }
  void on_reset(std::string_view topic, const char* reason) override {
    lines.push_back("reset " + std::string(topic) + " " + reason);
  }
  void on_refused(std::string_view topic, std::string_view) override {
    lines.push_back("refused " + std::string(topic));
  }
  std::size_t events() const { return ids.size(); }
};

class StreamReaderTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis.ok()) << redis.error();
    limits.block = 200ms;
    start();
  }

  void start(LinkLimits link_limits = test::quick_link_limits()) {
    reader.reset();
    read_link.reset();
    command_link.reset();
    read_link = std::make_unique<RedisLink>(loop, Endpoint{"127.0.0.1", redis.port()}, link_limits, nullptr);
    command_link = std::make_unique<RedisLink>(loop, Endpoint{"127.0.0.1", redis.port()}, link_limits, nullptr);
    reader = std::make_unique<StreamReader>(*read_link, command_link.get(), limits, journal);
    ASSERT_TRUE(test::run_until(loop, [&] {
      return read_link->state() == LinkState::up && command_link->state() == LinkState::up;
    }));
  }

  // Publishes as every node does, through the script.
  StreamId publish(const std::string& topic, const std::string& data) {
    const test::ReplyPtr r =
        redis.command({"EVAL", std::string(kPublishScript), "1", "sluice:" + topic, "1000", data, "", ""});
    EXPECT_TRUE(r != nullptr && r->type == REDIS_REPLY_STRING);
    if (r == nullptr || r->type != REDIS_REPLY_STRING) return {};
    return parse_stream_id(std::string_view(r->str, r->len)).value_or(StreamId{});
  }

  bool started(const std::string& topic) {
    return test::run_until(loop, [&] {
      for (const std::string& l : journal.lines) {
        if (l.starts_with("start " + topic + " ")) return reader->reading();
      }
      return false;
    });
  }

  test::RedisServer redis;
  io::Loop loop;
  Journal journal;
  ReaderLimits limits;
  std::unique_ptr<RedisLink> read_link;
  std::unique_ptr<RedisLink> command_link;
  std::unique_ptr<StreamReader> reader;
};

TEST_F(StreamReaderTest, FollowsFromTheNewestEntryAndReadsInOrder) {
  publish("a", "old 1");
  const StreamId newest = publish("a", "old 2");
  ASSERT_EQ(reader->follow("a"), FollowStatus::ok);
  EXPECT_EQ(reader->follow("a"), FollowStatus::already);
  ASSERT_TRUE(started("a"));
  EXPECT_EQ(journal.lines[0], "start a " + text(newest));
  for (int i = 1; i <= 3; ++i) publish("a", "new " + std::to_string(i));
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 3; }));
  EXPECT_EQ(journal.lines, (std::vector<std::string>{"start a " + text(newest), "event a new 1", "event a new 2",
                                                      "event a new 3"}));
  EXPECT_EQ(journal.ids[0], newest.next());
  EXPECT_EQ(journal.ids[2].seq, newest.seq + 3);
}

TEST_F(StreamReaderTest, ATopicWithNoStreamYetIsReadFromItsFirstEvent) {
  ASSERT_EQ(reader->follow("fresh"), FollowStatus::ok);
  ASSERT_TRUE(started("fresh"));
  EXPECT_EQ(journal.lines[0], "start fresh 0-0");
  publish("fresh", "first");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  EXPECT_EQ(journal.ids[0].seq, 1u);
  EXPECT_EQ(journal.lines.size(), 2u);  // no gap, no reset
}

// Many topics, one round trip: what was published to fifty topics while
// the loop was busy comes back in one read.
TEST_F(StreamReaderTest, ReadsManyTopicsInOneRead) {
  constexpr int kTopics = 50;
  for (int i = 0; i < kTopics; ++i) ASSERT_EQ(reader->follow("t" + std::to_string(i)), FollowStatus::ok);
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.lines.size() == kTopics && reader->reading(); }));
  const std::uint64_t reads_before = reader->reads();
  for (int i = 0; i < kTopics; ++i) publish("t" + std::to_string(i), "e" + std::to_string(i));
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == kTopics; }));
  // The blocked read returns with the first topic's event; the next one
  // finds the other 49.
  EXPECT_LE(reader->reads() - reads_before, 3u);
}

// A topic followed while a read is blocked inside Redis joins at once: the
// read is cut short (CLIENT UNBLOCK) rather than waited out.
TEST_F(StreamReaderTest, ANewTopicCutsABlockedReadShort) {
  limits.block = 10s;
  start();
  ASSERT_EQ(reader->follow("a"), FollowStatus::ok);
  ASSERT_TRUE(started("a"));
  loop.run_once(0);
  const auto begin = Clock::now();
  ASSERT_EQ(reader->follow("b"), FollowStatus::ok);
  ASSERT_TRUE(started("b"));
  publish("b", "hello");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  EXPECT_LT(Clock::now() - begin, limits.block / 2);
  EXPECT_GE(reader->unblocks(), 1u);
  EXPECT_EQ(journal.lines.back(), "event b hello");
}

TEST_F(StreamReaderTest, FollowFromAPositionReadsWhatCameAfterIt) {
  const StreamId first = publish("r", "1");
  publish("r", "2");
  publish("r", "3");
  ASSERT_EQ(reader->follow_from("r", first), FollowStatus::ok);
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 2; }));
  EXPECT_EQ(journal.lines, (std::vector<std::string>{"event r 2", "event r 3"}));
}

TEST_F(StreamReaderTest, UnfollowedTopicsAreNotDelivered) {
  ASSERT_EQ(reader->follow("a"), FollowStatus::ok);
  ASSERT_EQ(reader->follow("b"), FollowStatus::ok);
  ASSERT_TRUE(started("a"));
  ASSERT_TRUE(started("b"));
  reader->unfollow("a");
  EXPECT_EQ(reader->followed(), 1u);
  publish("a", "no");
  publish("b", "yes");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  publish("b", "yes again");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 2; }));
  EXPECT_EQ(journal.lines.back(), "event b yes again");
  EXPECT_EQ(std::count(journal.lines.begin(), journal.lines.end(), "event a no"), 0);
}

// Entries trimmed before this node read them are told as a gap with their
// exact ids, then reading goes on.
TEST_F(StreamReaderTest, TrimmedEntriesAreAGap) {
  const StreamId e = publish("g", "0");
  // Nothing is read before the loop turns: the trim comes first.
  ASSERT_EQ(reader->follow_from("g", e), FollowStatus::ok);
  for (int i = 1; i <= 10; ++i) publish("g", std::to_string(i));
  ASSERT_TRUE(redis.command({"XTRIM", "sluice:g", "MAXLEN", "3"}) != nullptr);
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 3; }));
  EXPECT_EQ(journal.lines, (std::vector<std::string>{"gap g " + text({e.epoch, 2}) + " " + text({e.epoch, 8}),
                                                      "event g 8", "event g 9", "event g 10"}));
}

// Entries this node cannot use (no data field, written by another program;
// data over its limit, published by a node with larger limits) are gone
// past, their ids a hole for the loops to tell with the next event, on the
// same connection: the topic, and the others read with it, go on. Refusing
// the read whole had the reader reconnect and read them again, forever.
TEST_F(StreamReaderTest, EntriesThisNodeCannotUseAreGonePastAndTheReadGoesOn) {
  limits.max_data = 16;
  start();
  const StreamId first = publish("a", "first");
  ASSERT_EQ(reader->follow_from("a", first), FollowStatus::ok);
  ASSERT_EQ(reader->follow("b"), FollowStatus::ok);
  ASSERT_TRUE(started("b"));
  ASSERT_TRUE(redis.command({"XADD", "sluice:a", text(first.next()), "e", "no data"}) != nullptr);
  publish("a", std::string(17, 'x'));
  publish("a", "after");
  publish("b", "other");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 2; }));
  EXPECT_EQ(journal.ids[0], (StreamId{first.epoch, first.seq + 3}));
  EXPECT_NE(std::find(journal.lines.begin(), journal.lines.end(), "event a after"), journal.lines.end());
  EXPECT_NE(std::find(journal.lines.begin(), journal.lines.end(), "event b other"), journal.lines.end());
  EXPECT_EQ(reader->unusable(), 2u);
  EXPECT_EQ(read_link->times_up(), 1u);  // never reset
}

// Redis restarted empty: the stream the node read is gone, and a new one
// (a new epoch) begins. The subscribers are told of a reset, then get the
// new stream from its first event.
TEST_F(StreamReaderTest, RedisRestartedEmptyIsAReset) {
  ASSERT_EQ(reader->follow("x"), FollowStatus::ok);
  ASSERT_TRUE(started("x"));
  publish("x", "before");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  const StreamId before = journal.ids[0];
  ASSERT_TRUE(redis.restart()) << redis.error();
  publish("x", "after 1");
  publish("x", "after 2");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 3; }));
  EXPECT_EQ(journal.lines, (std::vector<std::string>{"start x 0-0", "event x before", "reset x stream-replaced",
                                                      "event x after 1", "event x after 2"}));
  EXPECT_NE(journal.ids[1].epoch, before.epoch);
  EXPECT_EQ(journal.ids[1].seq, 1u);
}

// The same, when the reader is back before anyone publishes again: the
// stream is lost, and the next one is read from its start.
TEST_F(StreamReaderTest, RedisRestartedEmptyWithNothingNewIsAReset) {
  ASSERT_EQ(reader->follow("y"), FollowStatus::ok);
  ASSERT_TRUE(started("y"));
  publish("y", "before");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  const std::uint64_t ups = read_link->times_up();
  ASSERT_TRUE(redis.restart()) << redis.error();
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.lines.back() == "reset y stream-lost"; }));
  EXPECT_GT(read_link->times_up(), ups);
  publish("y", "after");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 2; }));
  EXPECT_EQ(journal.ids[1].seq, 1u);
}

// A stopped Redis: the reader's connection times out and comes back when
// Redis does; what was published in between arrives in order, with no
// reset and no gap.
TEST_F(StreamReaderTest, StoppedRedisCatchesUpInOrderWhenItReturns) {
  ASSERT_EQ(reader->follow("s"), FollowStatus::ok);
  ASSERT_TRUE(started("s"));
  publish("s", "1");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  const std::uint64_t ups = read_link->times_up();
  redis.pause();
  ASSERT_TRUE(test::run_until(loop, [&] { return read_link->state() != LinkState::up; }));
  redis.resume();
  for (int i = 2; i <= 5; ++i) publish("s", std::to_string(i));
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 5; }));
  EXPECT_GT(read_link->times_up(), ups);
  EXPECT_EQ(journal.lines, (std::vector<std::string>{"start s 0-0", "event s 1", "event s 2", "event s 3", "event s 4",
                                                      "event s 5"}));
}

TEST_F(StreamReaderTest, AKeyThatIsNotAStreamIsRefused) {
  ASSERT_TRUE(redis.command({"SET", "sluice:plain", "1"}) != nullptr);
  ASSERT_EQ(reader->follow("plain"), FollowStatus::ok);
  ASSERT_EQ(reader->follow("ok"), FollowStatus::ok);
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.lines.size() == 2; }))
      << testing::PrintToString(journal.lines);
  EXPECT_NE(std::find(journal.lines.begin(), journal.lines.end(), "refused plain"), journal.lines.end());
  EXPECT_EQ(reader->followed(), 1u);
  ASSERT_TRUE(started("ok"));
  publish("ok", "fine");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
}

// Redis running a long script answers BUSY to everything: the topic's key is
// not at fault, so it is not refused; the reader reconnects after its
// back-off and reads the topic once Redis answers again.
TEST_F(StreamReaderTest, ATopicLocatedWhileRedisIsBusyIsReadOnceItIsNot) {
  const auto threshold = redis.command({"CONFIG", "SET", "busy-reply-threshold", "10"});
  ASSERT_TRUE(threshold != nullptr && threshold->type != REDIS_REPLY_ERROR)
      << (threshold != nullptr ? std::string(threshold->str, threshold->len) : "no answer");
  // Runs until killed, or for 30 s at most should the test not get that far.
  std::thread script([&] {
    redis.command({"EVAL", "local t = redis.call('TIME')[1] while redis.call('TIME')[1] - t < 30 do end", "0"});
  });
  const auto busy = [&] {
    const test::ReplyPtr pong = redis.command({"PING"});
    return pong != nullptr && pong->type == REDIS_REPLY_ERROR && std::string(pong->str).starts_with("BUSY");
  };
  const Clock::time_point give_up = Clock::now() + 10s;
  bool was_busy = false;
  while (!(was_busy = busy()) && Clock::now() < give_up) {
  }
  const std::uint64_t ups = read_link->times_up();
  const FollowStatus followed = reader->follow("b");
  const bool cut = test::run_until(loop, [&] { return read_link->state() != LinkState::up; });
  redis.command({"SCRIPT", "KILL"});
  script.join();
  ASSERT_TRUE(was_busy);
  ASSERT_EQ(followed, FollowStatus::ok);
  ASSERT_TRUE(cut) << testing::PrintToString(journal.lines);
  ASSERT_TRUE(started("b")) << testing::PrintToString(journal.lines);
  EXPECT_GT(read_link->times_up(), ups);
  EXPECT_EQ(std::find(journal.lines.begin(), journal.lines.end(), "refused b"), journal.lines.end());
  publish("b", "after");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.lines.back() == "event b after"; }));
}

// A key that stops being a stream while it is read: the read fails, the
// reader checks every topic again on the same connection, refuses that one
// and goes on with the others, the link up throughout (a reconnection would
// have the loop count as cut off from Redis for its back-off).
TEST_F(StreamReaderTest, AKeyThatStopsBeingAStreamIsRefusedAndTheRestReadOn) {
  ASSERT_EQ(reader->follow("p"), FollowStatus::ok);
  ASSERT_EQ(reader->follow("q"), FollowStatus::ok);
  ASSERT_TRUE(started("p"));
  ASSERT_TRUE(started("q"));
  publish("p", "1");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  const std::uint64_t ups = read_link->times_up();
  ASSERT_TRUE(redis.command({"DEL", "sluice:p"}) != nullptr);
  ASSERT_TRUE(redis.command({"SET", "sluice:p", "x"}) != nullptr);
  publish("q", "2");
  ASSERT_TRUE(test::run_until(loop, [&] {
    return std::find(journal.lines.begin(), journal.lines.end(), "refused p") != journal.lines.end();
  }));
  publish("q", "3");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.lines.back() == "event q 3"; }));
  EXPECT_EQ(reader->followed(), 1u);
  EXPECT_EQ(read_link->times_up(), ups);
  EXPECT_EQ(std::count(journal.lines.begin(), journal.lines.end(), "event q 2"), 1);
}

// A sink with no room holds a topic: it is not read further (the backlog
// stays in Redis) while the others are, and resume() reads on from the
// held event, with nothing twice and nothing missing.
TEST_F(StreamReaderTest, AHeldTopicWaitsInRedisUntilResumed) {
  ASSERT_EQ(reader->follow("h"), FollowStatus::ok);
  ASSERT_EQ(reader->follow("other"), FollowStatus::ok);
  ASSERT_TRUE(started("h"));
  ASSERT_TRUE(started("other"));
  journal.hold_data = "2";
  for (const char* d : {"1", "2", "3"}) publish("h", d);
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.lines.back() == "held h 2"; }));
  publish("h", "4");
  publish("other", "still read");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.lines.back() == "event other still read"; }));
  reader->resume("h");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 5; }));
  std::vector<std::string> h_lines;
  for (const std::string& l : journal.lines) {
    if (l.find(" h ") != std::string::npos) h_lines.push_back(l);
  }
  EXPECT_EQ(h_lines, (std::vector<std::string>{"start h 0-0", "event h 1", "held h 2", "event h 2", "event h 3",
                                                "event h 4"}));
}

// An answer past broker.max_reply_bytes closes the reader's connection; the
// reader asks for fewer entries per topic and gets them all, in order.
TEST_F(StreamReaderTest, AnAnswerTooLargeMakesTheReaderAskForLess) {
  LinkLimits small = test::quick_link_limits();
  small.max_reply_bytes = 8 << 10;
  start(small);
  const StreamId e = publish("big", "0");
  ASSERT_EQ(reader->follow_from("big", e), FollowStatus::ok);
  const std::string kilobyte(1024, 'k');
  for (int i = 1; i <= 20; ++i) publish("big", std::to_string(i) + kilobyte);
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 20; }));
  EXPECT_GE(read_link->failures(), 2u);
  for (std::size_t i = 0; i < journal.ids.size(); ++i) EXPECT_EQ(journal.ids[i].seq, i + 2);
  EXPECT_EQ(journal.lines.size(), 20u);  // no gap, no reset
}

// With one request allowed on the connection, a topic followed while the
// read is in flight cannot be located at once; it is as soon as the read is
// answered (cut short for it), and read from then on.
TEST_F(StreamReaderTest, ALocateRefusedForMaxPendingGoesWhenTheReadIsAnswered) {
  LinkLimits one = test::quick_link_limits();
  one.max_pending = 1;
  start(one);
  ASSERT_EQ(reader->follow("a"), FollowStatus::ok);
  ASSERT_TRUE(started("a"));
  ASSERT_EQ(reader->follow("b"), FollowStatus::ok);
  ASSERT_TRUE(started("b"));
  publish("b", "after b's place");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
  EXPECT_EQ(journal.lines.back(), "event b after b's place");
}

TEST_F(StreamReaderTest, TheFollowedSetIsBounded) {
  limits.max_topics = 3;
  start();
  for (const char* t : {"a", "b", "c"}) ASSERT_EQ(reader->follow(t), FollowStatus::ok);
  EXPECT_EQ(reader->follow("d"), FollowStatus::full);
  reader->unfollow("b");
  EXPECT_EQ(reader->follow("d"), FollowStatus::ok);
  // The read must also fit what the connection may hold.
  LinkLimits small = test::quick_link_limits();
  small.max_pending_bytes = 1024;
  limits.max_topics = 1000;
  start(small);
  int followed = 0;
  while (reader->follow("topic-" + std::to_string(followed)) == FollowStatus::ok) ++followed;
  EXPECT_GT(followed, 3);
  EXPECT_LT(followed, 20);
  ASSERT_TRUE(started("topic-0"));
  publish("topic-" + std::to_string(followed - 1), "last fits");
  ASSERT_TRUE(test::run_until(loop, [&] { return journal.events() == 1; }));
}

}  // namespace
}  // namespace sluice::broker
