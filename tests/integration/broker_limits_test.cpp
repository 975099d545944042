// What a node answers when a broker limit is reached, with a real sluiced
// and a real redis-server: a publish too large for what one connection to
// Redis may hold (broker.max_pending_bytes) is refused with 413 and costs
// the next publish nothing; past broker.max_pending publishes waiting for
// Redis, one more is refused at once (503, busy) rather than queued.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;

// Publishes `body`, again while the node answers 503 (its link to Redis is
// not up yet, or not again), for at most 10 s.
Published until_taken(const SluicedProcess& node, const std::string& topic, const std::string& body) {
  const auto deadline = Clock::now() + 10s;
  Published p;
  while (Clock::now() < deadline && (p = publish_on(node, topic, body)).status == 503) {
  }
  return p;
}

TEST(BrokerLimits, APublishLargerThanMaxPendingBytesIsRefused413AndTheNextGoesThrough) {
  RedisServer redis;
  ASSERT_TRUE(redis.ok()) << redis.error();
  // One loop: the link the warm-up publish found up is the one the next uses.
  SluicedProcess node({"broker.url=" + redis.url(), "threads=1", "broker.max_pending_bytes=4096",
                       "broker.read_max_topics=10", "broker.reconnect_min_ms=20", "broker.reconnect_max_ms=200"});
  ASSERT_NE(node.port(), 0) << node.output();
  const Published warm = until_taken(node, "t", "link up");
  ASSERT_EQ(warm.status, 200);
  const HttpReply big = http_request(node.port(), "POST", "/pub/t", std::string(5000, 'x'));
  EXPECT_EQ(big.status, 413) << big.head << big.body;
  EXPECT_NE(big.body.find("broker.max_pending_bytes"), std::string::npos) << big.body;
  const Published small = publish_on(node, "t", "fits");
  EXPECT_EQ(small.status, 200);
  EXPECT_EQ(seq_of(small.id), seq_of(warm.id) + 1) << "the refused event is not in the stream";
}

TEST(BrokerLimits, PastMaxPendingAPublishIsRefusedBusyAtOnce) {
  RedisServer redis;
  ASSERT_TRUE(redis.ok()) << redis.error();
  // One loop, so both publishes share one connection to Redis.
  SluicedProcess node({"broker.url=" + redis.url(), "threads=1", "broker.max_pending=1",
                       "broker.request_timeout_ms=1500", "broker.reconnect_min_ms=20",
                       "broker.reconnect_max_ms=200"});
  ASSERT_NE(node.port(), 0) << node.output();
  ASSERT_EQ(until_taken(node, "t", "first").status, 200) << "the link is up";

  redis.pause();  // the link stays up; nothing is answered
  TestClient held(node.port());
  held.send("POST /pub/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\nheld");
  const auto started = Clock::now();
  const HttpReply second = http_request(node.port(), "POST", "/pub/t", "second");
  const auto waited = Clock::now() - started;
  const HttpReply first = read_reply(held, 10s);
  redis.resume();
  // Whichever reached the node first waits for Redis (504 once the request
  // times out); the other finds the one slot taken and is refused at once.
  const bool second_refused = second.status == 503;
  const HttpReply& refused = second_refused ? second : first;
  const HttpReply& waiting = second_refused ? first : second;
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_NE(refused.body.find("broker.max_pending"), std::string::npos) << refused.body;
  EXPECT_EQ(waiting.status, 504) << waiting.body;
  if (second_refused) {
    EXPECT_LT(waited, 1s) << "refused at once, not after the request timeout";
  }

  // Redis goes on: publishes are taken again once the link is back.
  EXPECT_EQ(until_taken(node, "t", "after").status, 200);
}

// Redis's total_connections_received: how many connections it has taken
// (each command() is one of them).
long long connections_received(const RedisServer& redis) {
  const ReplyPtr info = redis.command({"INFO", "stats"});
  if (!info || info->type != REDIS_REPLY_STRING) return -1;
  const std::string text(info->str, info->len);
  const std::string key = "total_connections_received:";
  const std::size_t at = text.find(key);
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size()));
}

// A client resumes on A, which has never read the topic, from the first of
// 60 events of 4 KiB: A's reader reads the stream from there, and the
// answer (up to broker.read_count entries, some 240 KiB) is larger than
// broker.max_reply_bytes (64 KiB). As documented, the connection is closed
// and the reader asks for fewer entries per read: the client gets every
// event once, in order, with no notice; the other topic A reads on the
// same connection goes on without a word, and A's publishes are taken.
TEST(BrokerLimits, AnAnswerLargerThanMaxReplyBytesClosesTheReadersConnectionAndReadsGoOnInSmallerBites) {
  RedisServer redis;
  ASSERT_TRUE(redis.ok()) << redis.error();
  std::vector<std::string> settings = node_settings(redis);
  settings.emplace_back("broker.max_reply_bytes=65536");
  settings.emplace_back("threads=1");  // one reader: both topics on one connection
  SluicedProcess a(settings);
  SluicedProcess b(node_settings(redis));
  ASSERT_NE(a.port(), 0) << a.output();
  ASSERT_NE(b.port(), 0) << b.output();

  SseSubscriber other(a.port(), "/sse/small");
  ASSERT_TRUE(other.opened()) << "placed: what comes next is its";
  std::vector<std::string> small_data, small_ids;
  const auto publish_small = [&](const SluicedProcess& via, const std::string& body) {
    const Published p = until_taken(via, "small", body);
    ASSERT_EQ(p.status, 200) << body;
    small_data.push_back(body);
    small_ids.push_back(p.id);
  };
  publish_small(b, "s1");

  std::vector<std::string> data, ids;
  for (int i = 1; i <= 60; ++i) {
    const std::string body = std::to_string(i) + ":" + std::string(4096, static_cast<char>('a' + i % 26));
    const Published p = until_taken(b, "big", body);
    ASSERT_EQ(p.status, 200) << i;
    data.push_back(body);
    ids.push_back(p.id);
  }
  const long long connections_before = connections_received(redis);
  ASSERT_GT(connections_before, 0);

  SseSubscriber big(a.port(), "/sse/big", 0, ids.front());
  ASSERT_TRUE(big.opened());
  publish_small(a, "s2");
  ASSERT_TRUE(wait_events(big, 59, 20s)) << big.events().size() << " of 59";
  expect_exactly(big.events(), std::vector<std::string>(data.begin() + 1, data.end()),
                 std::vector<std::string>(ids.begin() + 1, ids.end()), "resumed on A");
  // One more for this check's own connection: the rest are the reader's
  // connection, closed for the answer's size and opened again.
  EXPECT_GE(connections_received(redis) - connections_before, 2) << "the answer was larger than the limit";

  publish_small(a, "s3");
  ASSERT_TRUE(wait_events(other, small_data.size(), 10s)) << other.events().size();
  expect_exactly(other.events(), small_data, small_ids, "the other topic on A");
}

}  // namespace
}  // namespace sluice::test
