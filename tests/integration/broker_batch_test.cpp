// An application's batch publish on a server with a broker, with a real
// redis-server: each event is handed to Redis in order (no ids yet: Redis
// gives them), a subscriber gets every one under consecutive ids, and the
// waiting form, which cannot wait on Redis's readers, says so. A Publisher
// of the topic does the same.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

TEST(BrokerBatch, ABatchGoesToRedisInOrderAndTheSubscriberGetsEveryEvent) {
  constexpr std::size_t kBatch = 50;
  RedisServer redis;
  ASSERT_TRUE(redis.ok()) << redis.error();
  server::Config config;
  for (const std::string& setting : node_settings(redis)) {
    const std::size_t eq = setting.find('=');
    ASSERT_EQ(server::apply_setting(config, setting.substr(0, eq), setting.substr(eq + 1)), std::nullopt) << setting;
  }
  RunningServer running(config);
  server::Server& server = running.server();
  SseSubscriber sub(running.port(), "/sse/batch");
  ASSERT_TRUE(sub.opened());
  // Probes until the subscriber's loop reads the topic from Redis (and the
  // link is up): every event after that is the subscriber's.
  const server::BatchEvent probe{"probe"};
  const auto deadline = BrokerClock::now() + 10s;
  while (BrokerClock::now() < deadline && !has_probe(sub)) {
    (void)server.publish_batch("batch", {&probe, 1});
    (void)sub.wait_for(sub.events().size() + 1, 100ms);
  }
  ASSERT_TRUE(has_probe(sub)) << "the subscriber's node never read the topic";

  std::vector<std::string> data;
  std::vector<server::BatchEvent> batch;
  for (std::size_t i = 0; i < kBatch; ++i) data.push_back("event " + std::to_string(i));
  for (const std::string& d : data) batch.push_back({d, "tick"});
  const server::BatchResult r = server.publish_batch("batch", batch);
  ASSERT_EQ(r.status, server::PublishStatus::ok);
  EXPECT_EQ(r.published, kBatch);
  EXPECT_EQ(r.first_id, 0u) << "Redis gives the ids, later";
  EXPECT_EQ(server.publish_batch_waiting("batch", batch, {}).status, server::PublishStatus::cannot_wait);

  const auto first_event = [&] {
    for (std::size_t i = 0; i < sub.events().size(); ++i) {
      if (sub.events()[i].data == data.front()) return i;
    }
    return sub.events().size();
  };
  const auto received = BrokerClock::now() + 10s;
  while (BrokerClock::now() < received && sub.events().size() < first_event() + kBatch) {
    (void)sub.wait_for(sub.events().size() + 1, 100ms);
  }
  const std::size_t at = first_event();
  ASSERT_LE(at + kBatch, sub.events().size());
  for (std::size_t i = 0; i < kBatch; ++i) {
    EXPECT_EQ(sub.events()[at + i].data, data[i]);
    EXPECT_EQ(sub.events()[at + i].type, "tick");
    if (i > 0) {
      EXPECT_EQ(seq_of(sub.events()[at + i].id), seq_of(sub.events()[at + i - 1].id) + 1);
    }
  }

  // A Publisher of the topic hands its events over as publish() does, and
  // cannot wait on Redis's readers either.
  server::Publisher publisher = server.publisher("batch");
  ASSERT_EQ(publisher.status(), server::PublishStatus::ok);
  const server::PublishResult handed = publisher.publish("from the publisher", "held");
  EXPECT_EQ(handed.status, server::PublishStatus::ok);
  EXPECT_EQ(handed.id, 0u) << "Redis gives the id, later";
  EXPECT_EQ(publisher.publish_waiting("x", {}).status, server::PublishStatus::cannot_wait);
  ASSERT_TRUE(sub.wait_for(at + kBatch + 1, 10s));
  EXPECT_EQ(sub.events()[at + kBatch].data, "from the publisher");
  EXPECT_EQ(sub.events()[at + kBatch].type, "held");
  EXPECT_EQ(server.publisher("bad topic").status(), server::PublishStatus::bad_topic);
}

}  // namespace
}  // namespace sluice::test
