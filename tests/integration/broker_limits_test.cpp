// What a node answers when a broker limit is reached, with a real sluiced
// and a real redis-server: a publish too large for what one connection to
// Redis may hold (broker.max_pending_bytes) is refused with 413 and costs
// the next publish nothing; past broker.max_pending publishes waiting for
// Redis, one more is refused at once (503, busy) rather than queued.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sluice::test
