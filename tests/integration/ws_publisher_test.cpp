// GET /pub/{topic} as a WebSocket: every message the client sends is
// published. A publisher far faster than the hub's history can absorb is
// held back, not dropped: the session stops reading until the loops have
// delivered, and every subscriber, SSE and WebSocket, on either loop, gets
// every message once and in order.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "server/live_settings.hpp"
#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

constexpr int kMessages = 10000;
constexpr int kPerSend = 500;

std::string message_text(int i) { return "m" + std::to_string(i) + " " + std::string(40, 'p'); }

server::Config two_loops_short_history() {
  server::Config config;
  config.threads = 2;
  config.hub.history_events = 64;  // the least kept: publishing outruns it at once
  // A reader thread starved for a while on a busy machine must not be cut
  // off as a slow consumer: then the pool, not the budget, holds the
  // publisher.
  config.connection.send.max_bytes = 8 << 20;
  config.connection.send.max_frames = 16384;
  return config;
}

void publish_all(std::uint16_t port) {
  WsTestClient publisher(port);
  ASSERT_TRUE(publisher.open("/pub/feed"));
  for (int i = 0; i < kMessages; i += kPerSend) {
    std::string batch;
    for (int j = i; j < i + kPerSend; ++j) batch += wire({.opcode = kText, .payload = message_text(j)});
    publisher.send_raw(batch);
  }
  publisher.send({.opcode = kClose, .payload = close_payload(1000)});
  EXPECT_EQ(publisher.read_close(), 1000);
}

TEST(WsPublisher, AFastPublisherIsHeldBackAndEverySubscriberGetsEveryMessageInOrder) {
  RunningServer server(two_loops_short_history());
  std::vector<std::unique_ptr<SseSubscriber>> sse;
  std::vector<std::unique_ptr<WsTestClient>> ws;
  for (int i = 0; i < 3; ++i) {
    sse.push_back(std::make_unique<SseSubscriber>(server.port(), "/sse/feed"));
    ASSERT_TRUE(sse.back()->opened());
    ws.push_back(std::make_unique<WsTestClient>(server.port()));
    ASSERT_TRUE(ws.back()->open("/ws/feed"));
  }
  std::vector<std::thread> readers;
  std::vector<int> in_order(6, 0);
  for (int i = 0; i < 3; ++i) {
    readers.emplace_back([&, i] {
      if (!sse[i]->wait_for(kMessages, 60s)) return;
      for (int j = 0; j < kMessages; ++j) {
        if (sse[i]->events()[j].data != message_text(j)) return;
        in_order[i] = j + 1;
      }
    });
    readers.emplace_back([&, i] {
      for (int j = 0; j < kMessages; ++j) {
        const auto m = ws[i]->read_message(30s);
        if (!m || m->payload != message_text(j)) return;
        in_order[3 + i] = j + 1;
      }
    });
  }
  publish_all(server.port());
  for (std::thread& t : readers) t.join();
  for (int count : in_order) EXPECT_EQ(count, kMessages);
  EXPECT_EQ(server.server().stats().slow_disconnects, 0u);
  EXPECT_GT(server.server().stats().publishes_held, 0u) << "the publisher never outran the history";
}

TEST(WsPublisher, RefusesWhatItCannotPublish) {
  RunningServer server;
  WsTestClient bad_topic(server.port());
  EXPECT_EQ(bad_topic.upgrade({.path = "/pub/no%20spaces"}).status, 400);
  EXPECT_EQ(http_request(server.port(), "GET", "/pub/feed").status, 405);  // no upgrade: only POST publishes

  server::Config closed_config;
  closed_config.ws.client_publish = 0;
  RunningServer closed(closed_config);
  WsTestClient refused(closed.port());
  EXPECT_EQ(refused.upgrade({.path = "/pub/feed"}).status, 403);
}

// ws.client_publish switched off by a reload holds for the publishers open
// then, on /pub/{topic} as on /ws/{topic}: their next message is not
// published, and they are closed 1008 saying why.
// The close frame's payload (code, then reason) past the frames before it;
// empty when none came.
std::string close_payload(WsTestClient& client) {
  while (std::optional<ServerFrame> frame = client.read_frame()) {
    if (frame->opcode == kClose) return frame->payload;
  }
  return {};
}

TEST(WsPublisher, PublishingSwitchedOffByAReloadClosesThePublishersOpenThen) {
  std::atomic<int> reloaded{0};
  RunningServer server(server::Config{}, [&reloaded](server::Server& s) {
    s.on_reload([&s] {
      server::Config read;
      read.ws.client_publish = 0;
      return server::apply_live_settings(s, read);
    });
    s.on_reloaded([&reloaded](const std::vector<std::string>&) { ++reloaded; });
  });
  SseSubscriber sub(server.port(), "/sse/feed");
  ASSERT_TRUE(sub.opened());
  WsTestClient publisher(server.port());
  ASSERT_TRUE(publisher.open("/pub/feed"));
  WsTestClient topic_stream(server.port());
  ASSERT_TRUE(topic_stream.open("/ws/feed"));
  publisher.send({.opcode = kText, .payload = "before, by /pub"});
  ASSERT_TRUE(sub.wait_for(1));
  topic_stream.send({.opcode = kText, .payload = "before, by /ws"});
  ASSERT_TRUE(sub.wait_for(2));
  server.server().request_reload();
  ASSERT_TRUE(wait_until([&] { return reloaded.load() == 1; }));
  const std::string policy_violation_because = std::string("\x03\xf0", 2) + "publishing is switched off";
  publisher.send({.opcode = kText, .payload = "after, by /pub"});
  EXPECT_EQ(close_payload(publisher), policy_violation_because);
  topic_stream.send({.opcode = kText, .payload = "after, by /ws"});
  // The topic stream reads the subscribers' events too: its close comes
  // after the two published before the reload.
  EXPECT_EQ(close_payload(topic_stream), policy_violation_because);
  ASSERT_EQ(server.server().publish("feed", "marker").status, server::PublishStatus::ok);
  ASSERT_TRUE(sub.wait_for(3));
  EXPECT_EQ(sub.events()[2].data, "marker");
}

TEST(WsPublisher, SendsNothingBackButAnswersPings) {
  RunningServer server;
  SseSubscriber sub(server.port(), "/sse/quiet");
  ASSERT_TRUE(sub.opened());
  WsTestClient publisher(server.port());
  ASSERT_TRUE(publisher.open("/pub/quiet"));
  publisher.send({.opcode = kText, .payload = "one"});
  publisher.send({.opcode = kPing, .payload = "are you there"});
  const auto pong = publisher.read_frame();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->opcode, kPong);  // not an echo or an ack of "one"
  EXPECT_EQ(pong->payload, "are you there");
  ASSERT_TRUE(sub.wait_for(1));
  EXPECT_EQ(sub.events()[0].data, "one");
}

}  // namespace
}  // namespace sluice::test::ws
