// Connection-level limits: half requests time out, the connection cap
// answers 503, and every slot comes back.
#include <gtest/gtest.h>

#include <memory>

#include "test_client.hpp"

namespace sluice::test {
namespace {

TEST(Limits, HalfARequestThatStallsIsClosedWith408) {
  server::Config config;
  config.handshake_timeout_ms = 200;
  RunningServer server(config);
  TestClient client(server.port());
  client.send("GET /sse/x HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const HttpReply reply = read_reply(client, 10s);
  EXPECT_EQ(reply.status, 408);
  EXPECT_TRUE(client.read_until_closed());
}

TEST(Limits, ASilentConnectionCannotHoldASlot) {
  server::Config config;
  config.handshake_timeout_ms = 200;
  RunningServer server(config);
  TestClient client(server.port());
  EXPECT_TRUE(client.read_until_closed());
}

TEST(Limits, IdleKeepAliveConnectionIsClosed) {
  server::Config config;
  config.idle_timeout_ms = 200;
  RunningServer server(config);
  TestClient client(server.port());
  client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(read_reply(client).status, 200);
  EXPECT_TRUE(client.read_until_closed());
}

TEST(Limits, ConnectionsPastTheCapGet503AndSlotsComeBack) {
  server::Config config;
  config.max_connections = 3;
  RunningServer server(config);
  std::vector<std::unique_ptr<SseSubscriber>> streams;
  for (int i = 0; i < 3; ++i) {
    streams.push_back(std::make_unique<SseSubscriber>(server.port(), "/sse/cap"));
    ASSERT_TRUE(streams.back()->opened());
  }
  TestClient extra(server.port());
  const HttpReply refused = read_reply(extra);
  EXPECT_EQ(refused.status, 503);
  EXPECT_TRUE(extra.read_until_closed());

  streams.pop_back();  // a slot frees when a client leaves
  bool served = false;
  for (int attempt = 0; attempt < 100 && !served; ++attempt) {
    served = http_request(server.port(), "GET", "/healthz").status == 200;
  }
  EXPECT_TRUE(served);
}

}  // namespace
}  // namespace sluice::test
