// WebSocket liveness: the server pings a quiet connection every
// ws.ping_interval_ms and drops one that has not answered within
// ws.pong_timeout_ms. A client that answers stays; a silent one goes.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

using Clock = std::chrono::steady_clock;

server::Config quick_pings() {
  server::Config config;
  config.ws.ping_interval_ms = 100;
  // Long beside the interval: a test thread descheduled for a while on a
  // busy machine must not look like a client that stopped answering.
  config.ws.pong_timeout_ms = 1000;
  return config;
}

// Reads one frame; a server ping is answered and counted.
void answer_pings(WsTestClient& client, int& answered, std::chrono::milliseconds limit) {
  const std::optional<ServerFrame> frame = client.read_frame(limit);
  if (!frame || frame->opcode != kPing) return;
  client.send({.opcode = kPong, .payload = frame->payload});
  ++answered;
}

TEST(WsLiveness, AClientThatAnswersStaysAndASilentOneIsClosed) {
  RunningServer server(quick_pings());
  WsTestClient answering(server.port());
  ASSERT_TRUE(answering.open("/ws/live"));
  WsTestClient silent(server.port());
  ASSERT_TRUE(silent.open("/ws/live"));

  // The silent client never reads, so its hang-up is seen without a read.
  int answered = 0;
  bool silent_closed = false;
  const auto deadline = Clock::now() + 20s;
  while ((!silent_closed || answered < 3) && Clock::now() < deadline) {
    answer_pings(answering, answered, 50ms);
    silent_closed = silent_closed || silent.hung_up(0ms);
  }
  EXPECT_TRUE(silent_closed);
  EXPECT_GE(answered, 3);

  // Past several pong deadlines, the answering client is still served.
  answering.send({.opcode = kPing, .payload = "alive?"});
  std::optional<ServerFrame> reply;
  for (int frames = 0; frames < 100 && (!reply || reply->opcode != kPong); ++frames) {
    reply = answering.read_frame();
    if (reply && reply->opcode == kPing) answering.send({.opcode = kPong, .payload = reply->payload});
  }
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->opcode, kPong);
  EXPECT_EQ(reply->payload, "alive?");
}

// The server sweeps its timers every quarter of the shortest HTTP timeout
// (at most once a second); ws.ping_interval_ms must still be honoured when
// it is shorter than that. With pings due every 100 ms, three seconds hold
// thirty; a sweep once a second would send at most four: asking for eight
// tells them apart and leaves room for a slow machine.
TEST(WsLiveness, PingsComeAtTheConfiguredInterval) {
  server::Config config = quick_pings();
  config.ws.pong_timeout_ms = 5000;
  config.linger_timeout_ms = 8000;  // every HTTP timeout long: the sweep runs once a second
  RunningServer server(config);
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws/live"));
  int answered = 0;
  const auto window_end = Clock::now() + 3s;
  while (Clock::now() < window_end) answer_pings(client, answered, 50ms);
  EXPECT_GE(answered, 8);
}

}  // namespace
}  // namespace sluice::test::ws
