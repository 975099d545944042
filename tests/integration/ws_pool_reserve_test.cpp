// The pool's reserve over WebSocket: when a stalled subscriber's queue has taken
// every data block, control frames still flow from the pool's reserve: a
// ping gets its pong, a new client completes its handshake, a close
// handshake completes. And, as for SSE, the publisher is refused with 503
// rather than a stalled fifo subscriber losing what it was sent.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

server::Config tiny_pool() {
  server::Config config;
  config.pool = {.block_count = 64, .block_size = 4096, .reserve = 4};
  config.max_connections = 16;
  config.connection.send.max_bytes = 1 << 20;  // the budget is not what stops data here: the pool is
  config.tcp_send_buffer = 4096;
  return config;
}

std::string event_text(int i) {
  std::string text = "event " + std::to_string(i) + " ";
  return text + std::string(1024 - text.size(), 'f');
}

// Publishes to /pub/flood until refused; returns how many were accepted
// and leaves the last status in `status`.
int publish_until_refused(TestClient& publisher, int& status) {
  int accepted = 0;
  status = 200;
  while (status == 200 && accepted < 1000) {
    status = publish(publisher, "/pub/flood", event_text(accepted));
    accepted += status == 200;
  }
  return accepted;
}

TEST(WsPoolReserve, ControlFramesFlowWhileDataIsRefused) {
  RunningServer server(tiny_pool());
  SseSubscriber stalled(server.port(), "/sse/flood", 4096);
  ASSERT_TRUE(stalled.opened());
  WsTestClient pinger(server.port());
  ASSERT_TRUE(pinger.open("/ws/other"));
  TestClient publisher(server.port());
  int status = 0;
  const int accepted = publish_until_refused(publisher, status);
  ASSERT_EQ(status, 503);
  EXPECT_GT(accepted, 20);

  pinger.send({.opcode = kPing, .payload = "still there?"});
  const std::optional<ServerFrame> pong = pinger.read_frame();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->opcode, kPong);
  EXPECT_EQ(pong->payload, "still there?");

  WsTestClient newcomer(server.port());
  ASSERT_TRUE(newcomer.open("/ws/other"));

  pinger.send({.opcode = kClose, .payload = close_payload(1000, "bye")});
  EXPECT_EQ(pinger.read_close(), 1000);
  EXPECT_TRUE(pinger.wait_closed());

  // The stalled reader drains, and data flows again.
  ASSERT_TRUE(stalled.wait_for(static_cast<std::size_t>(accepted)));
  EXPECT_EQ(publish(publisher, "/pub/other", "after"), 200);
  const std::optional<ServerFrame> after = newcomer.read_message();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->payload, "after");
}

TEST(WsPoolReserve, AStalledWebSocketSubscriberLosesNothing) {
  RunningServer server(tiny_pool());
  WsTestClient stalled(server.port(), 4096);
  ASSERT_TRUE(stalled.open("/ws/flood"));
  TestClient publisher(server.port());
  int status = 0;
  const int accepted = publish_until_refused(publisher, status);
  EXPECT_EQ(status, 503) << "the pool never refused the publisher";
  for (int i = 0; i < accepted; ++i) {
    const std::optional<ServerFrame> m = stalled.read_message();
    ASSERT_TRUE(m) << "event " << i;
    ASSERT_TRUE(m->payload == event_text(i)) << "event " << i << " is: " << m->payload.substr(0, 160);
  }
}

}  // namespace
}  // namespace sluice::test::ws
