// One host opening connection after connection would take max_connections
// for itself and lock every other client out. limits.per_ip_connections
// bounds what one address may hold open: past it the connection is told
// so at once (503 naming the key) and closed, and the others' streams go
// on.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "test_client.hpp"

namespace sluice::test {
namespace {

TEST(PerAddressConnections, PastTheLimitA503NamesItAndTheStreamsGoOn) {
  server::Config config;
  config.per_ip_connections = 3;
  RunningServer server(config);
  std::vector<std::unique_ptr<SseSubscriber>> streams;
  for (int i = 0; i < 3; ++i) {
    streams.push_back(std::make_unique<SseSubscriber>(server.port(), "/sse/t"));
    ASSERT_TRUE(streams.back()->opened());
  }
  for (int i = 0; i < 20; ++i) {
    TestClient extra(server.port());
    const HttpReply refused = read_reply(extra);
    EXPECT_EQ(refused.status, 503);
    EXPECT_EQ(refused.body, "too many connections from this address (limits.per_ip_connections)");
    EXPECT_TRUE(extra.read_until_closed());
  }
  streams.pop_back();  // its place comes back once the server has seen it close
  bool published = false;
  for (int attempt = 0; attempt < 100 && !published; ++attempt) {
    published = http_request(server.port(), "POST", "/pub/t", "after").status == 200;
  }
  ASSERT_TRUE(published);
  for (auto& stream : streams) {
    ASSERT_TRUE(stream->wait_for(1));
    EXPECT_EQ(stream->events()[0].data, "after");
  }
}

}  // namespace
}  // namespace sluice::test
