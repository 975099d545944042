// A client that subscribes with no id to a topic its node has not read yet,
// with two real sluiced nodes and a real redis-server: once it holds its
// answer (the SSE head, the /ws ack) an event published on the other node
// is its, because the answer waits until the node's reader knows where the
// topic stands in Redis. The /ws ack names that place as an id of the
// stream, which resumes on either node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker_nodes.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;

class BrokerFirstSubscribe : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.ok()) << redis_.error();
    for (auto* node : {&a_, &b_}) {
      *node = std::make_unique<SluicedProcess>(node_settings(redis_));
      ASSERT_NE((*node)->port(), 0) << (*node)->output();
    }
  }

  // Publishes `body` on B, again while B answers 503 (its link to Redis
  // not up yet, or not again after Redis was stopped), for at most 10 s.
  Published taken_on_b(const std::string& topic, const std::string& body) const {
    const auto deadline = Clock::now() + 10s;
    Published p;
    while (Clock::now() < deadline && (p = publish_on(*b_, topic, body)).status == 503) {
    }
    return p;
  }

  std::uint16_t port_a() const { return static_cast<std::uint16_t>(a_->port()); }
  std::uint16_t port_b() const { return static_cast<std::uint16_t>(b_->port()); }

  RedisServer redis_;
  std::unique_ptr<SluicedProcess> a_, b_;
};

// Every topic is new to A, and each event is published the moment the
// head is in: the first event the subscriber gets is that one, under the
// id B was given.
TEST_F(BrokerFirstSubscribe, AnEventPublishedOnTheOtherNodeOnceTheSseHeadIsInIsDelivered) {
  for (int i = 0; i < 8; ++i) {
    const std::string topic = "fresh" + std::to_string(i);
    // Half the topics have a stream already: the place is its newest event.
    if (i % 2 == 1) {
      ASSERT_EQ(taken_on_b(topic, "before").status, 200);
    }
    SseSubscriber sub(port_a(), "/sse/" + topic);
    ASSERT_TRUE(sub.opened()) << topic;
    const Published p = taken_on_b(topic, "first after the head");
    ASSERT_EQ(p.status, 200) << topic;
    ASSERT_TRUE(sub.wait_for(1, 10s)) << topic;
    expect_exactly(sub.events(), {"first after the head"}, {p.id}, topic);
  }
}

// While Redis is stopped A's reader cannot place the topic, so the head
// does not come; B's publish of another topic timing out (504, after
// broker.request_timeout_ms) is the clock. Once Redis goes on the head
// comes, and what is published after it is delivered.
TEST_F(BrokerFirstSubscribe, WhileRedisCannotAnswerTheHeadWaitsForThePlace) {
  ASSERT_EQ(taken_on_b("elsewhere", "B's link is up").status, 200);
  redis_.pause();
  SseSubscriber sub(port_a(), "/sse/stopped");
  const Published clock = publish_on(*b_, "elsewhere", "times out");
  EXPECT_EQ(clock.status, 504);
  EXPECT_FALSE(sub.opened(1ms)) << "a head sent before the topic is placed";
  redis_.resume();
  ASSERT_TRUE(sub.opened(10s));
  const Published p = taken_on_b("stopped", "after the head");
  ASSERT_EQ(p.status, 200);
  ASSERT_TRUE(sub.wait_for(1, 10s));
  expect_exactly(sub.events(), {"after the head"}, {p.id}, "subscriber on A");
}

// Over /ws: the ack waits for the place and names it (the newest event of
// the stream, in the stream's id form); what is published after the ack is
// delivered; and resuming from the ack's id on the other node brings
// exactly what came after it.
TEST_F(BrokerFirstSubscribe, OverWsTheAckNamesThePlaceAndResumesOnTheOtherNode) {
  const Published before = taken_on_b("acked", "before");
  ASSERT_EQ(before.status, 200);
  std::string acked_id;
  Published after;
  {
    ws::WsTestClient client(port_a());
    ASSERT_TRUE(client.open("/ws"));
    client.send({.opcode = ws::kText, .payload = R"({"op":"subscribe","topic":"acked","req":1})"});
    const std::optional<ws::ServerFrame> ack = client.read_message();
    ASSERT_TRUE(ack.has_value());
    ASSERT_NE(ack->payload.find("\"ok\":true"), std::string::npos) << ack->payload;
    acked_id = field_of(ack->payload, "last_id");
    EXPECT_EQ(acked_id, before.id) << ack->payload;
    after = publish_on(*b_, "acked", "after the ack");
    ASSERT_EQ(after.status, 200);
    const std::optional<ws::ServerFrame> event = client.read_message();
    ASSERT_TRUE(event.has_value());
    EXPECT_EQ(field_of(event->payload, "op"), "event") << event->payload;
    EXPECT_EQ(field_of(event->payload, "data"), "after the ack") << event->payload;
    EXPECT_EQ(field_of(event->payload, "id"), after.id) << event->payload;
  }
  const Published missed = publish_on(*b_, "acked", "missed");
  ASSERT_EQ(missed.status, 200);
  ws::WsTestClient back(port_b());
  ASSERT_TRUE(back.open("/ws"));
  back.send({.opcode = ws::kText,
             .payload = R"({"op":"subscribe","topic":"acked","since":")" + acked_id + R"(","req":2})"});
  const std::optional<ws::ServerFrame> ack = back.read_message();
  ASSERT_TRUE(ack.has_value());
  ASSERT_NE(ack->payload.find("\"ok\":true"), std::string::npos) << ack->payload;
  std::vector<std::string> data, ids;
  while (data.size() < 2) {
    const std::optional<ws::ServerFrame> m = back.read_message();
    ASSERT_TRUE(m.has_value()) << "got " << data.size();
    ASSERT_EQ(field_of(m->payload, "op"), "event") << m->payload;
    data.push_back(field_of(m->payload, "data"));
    ids.push_back(field_of(m->payload, "id"));
  }
  EXPECT_EQ(data, (std::vector<std::string>{"after the ack", "missed"}));
  EXPECT_EQ(ids, (std::vector<std::string>{after.id, missed.id}));
}

}  // namespace
}  // namespace sluice::test
