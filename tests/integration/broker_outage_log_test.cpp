// What an operator reads when Redis goes away under a running node and
// comes back, with a real sluiced and a real redis-server: one warning per
// loop naming Redis's address, the failure and the key, then one line per
// loop when it is back; not a line per reconnect attempt. And a node that
// lists the Redis instances in another order than the others: it says so
// and publishes nothing where the others would not read it.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

// Scrapes until the exposition holds `line` (the sweep brings the broker's
// figures up to date); false after 10 s.
bool metrics_show(const SluicedProcess& node, const std::string& line) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (http_request(node.port(), "GET", "/metrics").body.find("\n" + line + "\n") != std::string::npos) return true;
    std::this_thread::sleep_for(20ms);  // a poll's pace, not a wait for anything
  }
  return false;
}

// Waits until `redis` holds the shard mark `mark`.
bool marked(const RedisServer& redis, const std::string& mark) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    const ReplyPtr got = redis.command({"GET", "sluice:$shard"});
    if (got && got->type == REDIS_REPLY_STRING && std::string(got->str, got->len) == mark) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(BrokerOutageLog, RedisGoingAwayAndComingBackIsLoggedOncePerLoop) {
  RedisServer redis;
  ASSERT_TRUE(redis.ok()) << redis.error();
  SluicedProcess node(node_settings(redis));
  ASSERT_NE(node.port(), 0) << node.output();
  const std::string address = "redis=127.0.0.1:" + std::to_string(redis.port());
  const std::string gone = "msg=\"Redis cannot be reached: this loop refuses publishes (503)";
  const std::string back = "msg=\"Redis can be reached again\"";

  ASSERT_TRUE(redis.kill());
  ASSERT_TRUE(node.wait_for_output("loop=1 key=broker.url")) << node.output();
  ASSERT_TRUE(node.wait_for_output("loop=0 key=broker.url")) << node.output();
  EXPECT_TRUE(metrics_show(node, "sluice_broker_loops_cut_off 2"));
  ASSERT_TRUE(redis.restart()) << redis.error();
  ASSERT_TRUE(node.wait_for_output(back + " " + address + " loop=0")) << node.output();
  ASSERT_TRUE(node.wait_for_output(back + " " + address + " loop=1")) << node.output();
  EXPECT_TRUE(metrics_show(node, "sluice_broker_loops_cut_off 0"));
  const std::string metrics = http_request(node.port(), "GET", "/metrics").body;
  const std::string failures = "\nsluice_broker_link_failures_total ";
  const std::size_t at = metrics.find(failures);
  ASSERT_NE(at, std::string::npos) << metrics;
  EXPECT_GE(std::stoull(metrics.substr(at + failures.size())), 4u) << "two links a loop, each lost at least once";
  EXPECT_EQ(node.stop(), 0);

  const std::string out = node.output();
  EXPECT_EQ(count_of(out, gone), 2u) << out;
  EXPECT_EQ(count_of(out, back), 2u) << out;
  EXPECT_NE(out.find(address + " error="), std::string::npos) << out;
}

// Redis stops answering (SIGSTOP): each loop's links find it out by their
// own timers, one loop before the other. From the first loop's word on,
// /healthz is the node's answer whichever loop takes the probe, not 200
// from the loop that has not found out yet and 503 from the one that has.
TEST(BrokerOutageLog, HealthIsTheNodesAnswerWhileItsLoopsFindRedisGoneOneByOne) {
  RedisServer redis;
  ASSERT_TRUE(redis.ok()) << redis.error();
  SluicedProcess node(node_settings(redis));
  ASSERT_NE(node.port(), 0) << node.output();
  ASSERT_TRUE(metrics_show(node, "sluice_broker_loops_cut_off 0"));
  redis.pause();
  ASSERT_TRUE(node.wait_for_output("key=broker.url")) << node.output();
  for (int probe = 0; probe < 8; ++probe) {
    const HttpReply health = http_request(node.port(), "GET", "/healthz");
    EXPECT_EQ(health.status, 503) << "probe " << probe << ": " << health.body;
    EXPECT_NE(health.body.find("broker.url"), std::string::npos) << health.body;
  }
  redis.resume();
  EXPECT_EQ(node.stop(), 0);
}

TEST(BrokerOutageLog, ANodeListingTheInstancesInAnotherOrderSaysSoAndPublishesNothing) {
  RedisServer one;
  RedisServer two;
  ASSERT_TRUE(one.ok()) << one.error();
  ASSERT_TRUE(two.ok()) << two.error();
  SluicedProcess first({"broker.url=" + one.url() + "," + two.url(), "threads=1"});
  ASSERT_NE(first.port(), 0) << first.output();
  ASSERT_TRUE(marked(one, "0/2"));
  ASSERT_TRUE(marked(two, "1/2"));
  SluicedProcess reversed({"broker.url=" + two.url() + "," + one.url(), "threads=1"});
  ASSERT_NE(reversed.port(), 0) << reversed.output();
  ASSERT_TRUE(reversed.wait_for_output("Redis answers, but this loop may not publish to it")) << reversed.output();
  const HttpReply health = http_request(reversed.port(), "GET", "/healthz");
  EXPECT_EQ(health.status, 503);
  EXPECT_NE(health.body.find("answers, but this node may not publish to it: it is marked shard 1/2 (index/count) "
                             "of broker.url by other nodes, and is 0/2 here"),
            std::string::npos)
      << health.body;
  // Its claim on t's instance may be answered a moment after the other's.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  HttpReply refused = http_request(reversed.port(), "POST", "/pub/t", "x");
  while (refused.status != 503 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
    refused = http_request(reversed.port(), "POST", "/pub/t", "x");
  }
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("lists the Redis instances in another order"), std::string::npos) << refused.body;
  EXPECT_TRUE(metrics_show(reversed, "sluice_broker_loops_cut_off 1"));
  EXPECT_EQ(http_request(first.port(), "GET", "/healthz").status, 200);
  EXPECT_EQ(first.stop(), 0);
  EXPECT_EQ(reversed.stop(), 0);
}

}  // namespace
}  // namespace sluice::test
