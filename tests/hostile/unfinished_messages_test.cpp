// A WebSocket message begun and never finished would hold its reassembly
// buffer (up to ws.max_message) for as long as the client likes. It must
// be whole within ws.message_timeout_ms; a client that sends its messages
// slowly but finishes each in time is not affected.
#include <gtest/gtest.h>

#include <thread>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

server::Config quick_timeout() {
  server::Config config;
  config.ws.message_timeout_ms = 300;
  return config;
}

TEST(UnfinishedMessages, AFragmentWithoutItsEndIsClosedWith1008) {
  RunningServer server(quick_timeout());
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws/t"));
  client.send({.opcode = kText, .payload = std::string(1000, 'a'), .fin = false});
  EXPECT_EQ(client.read_close(), 1008);
  EXPECT_TRUE(client.wait_closed());
}

TEST(UnfinishedMessages, HalfAFrameIsClosedWith1008) {
  RunningServer server(quick_timeout());
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  const std::string frame = wire({.opcode = kText, .payload = std::string(4000, 'a')});
  client.send_raw(frame.substr(0, frame.size() / 2));
  EXPECT_EQ(client.read_close(), 1008);
  EXPECT_TRUE(client.wait_closed());
}

// Twenty messages, each sent in two halves 50 ms apart: a second in all,
// past the timeout, but every message is whole within it.
TEST(UnfinishedMessages, SlowButCompleteMessagesAreNotClosed) {
  RunningServer server(quick_timeout());
  WsTestClient subscriber(server.port());
  ASSERT_TRUE(subscriber.open("/ws/t"));
  WsTestClient publisher(server.port());
  ASSERT_TRUE(publisher.open("/pub/t"));
  for (int i = 0; i < 20; ++i) {
    const std::string frame = wire({.opcode = kText, .payload = "message " + std::to_string(i)});
    publisher.send_raw(frame.substr(0, 5));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the pace under test, not a wait for a condition
    publisher.send_raw(frame.substr(5));
  }
  for (int i = 0; i < 20; ++i) {
    const std::optional<ServerFrame> m = subscriber.read_message();
    ASSERT_TRUE(m) << i;
    EXPECT_EQ(m->payload, "message " + std::to_string(i));
  }
  EXPECT_FALSE(publisher.hung_up(std::chrono::milliseconds(0)));
}

}  // namespace
}  // namespace sluice::test::ws
