// What bounds a publish over HTTP/2 (h2c POST /pub/{topic}), each with its
// answer: bodies held across a connection's streams past
// receive.budget_bytes get 503 with Retry-After, one body past
// http.max_body gets 413 with a line naming the key and the limit, and a body the pool has no block for gets 503;
// after each the connection goes on and a small publish is served. A
// publish that asks for 100 Continue gets it before its body.
#include <gtest/gtest.h>

#include <string>

#include "h2_test_client.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::H2TestClient;

bool answered(H2TestClient& client, std::int32_t stream) {
  return client.pump([&] { return client.stream(stream).closed; });
}

// After a refusal the connection still publishes.
void expect_small_publish_served(H2TestClient& client) {
  const std::int32_t ok = client.request("POST", "/pub/limits", {}, "small");
  ASSERT_TRUE(answered(client, ok));
  EXPECT_EQ(client.stream(ok).status, 200);
  EXPECT_NE(client.stream(ok).body.find("\"topic\":\"limits\""), std::string::npos) << client.stream(ok).body;
}

// Its client may wait for the 100 before it sends the body (curl does, for
// a second): it comes once the headers passed their checks.
TEST(H2PublishLimits, APublishThatExpectsContinueGetsItBeforeItsBody) {
  RunningServer server;
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t post = client.request("POST", "/pub/limits", {{"expect", "100-continue"}}, "", true);
  ASSERT_TRUE(client.pump([&] { return client.stream(post).status != 0; }));
  EXPECT_EQ(client.stream(post).status, 100);
  client.send(post, "body", true);
  ASSERT_TRUE(answered(client, post));
  EXPECT_EQ(client.stream(post).status, 200);
  EXPECT_NE(client.stream(post).body.find("\"topic\":\"limits\""), std::string::npos) << client.stream(post).body;
}

TEST(H2PublishLimits, BodiesPastTheReceiveBudgetGet503AndTheConnectionGoesOn) {
  server::Config config;
  config.connection.receive_budget = 16 << 10;
  RunningServer server(config);
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  // Two bodies kept open, together past the budget.
  const std::int32_t first = client.request("POST", "/pub/limits", {}, std::string(10 << 10, 'a'), true);
  const std::int32_t second = client.request("POST", "/pub/limits", {}, std::string(10 << 10, 'b'), true);
  // Answered while the client may still be sending: the reply is whole
  // once its body's line has come.
  ASSERT_TRUE(client.pump([&] { return client.stream(second).body.ends_with("\n"); }));
  EXPECT_EQ(client.stream(second).status, 503);
  EXPECT_NE(client.stream(second).body.find("receive.budget_bytes"), std::string::npos);
  client.send(first, "", true);
  ASSERT_TRUE(answered(client, first));
  EXPECT_EQ(client.stream(first).status, 200);
  expect_small_publish_served(client);
}

TEST(H2PublishLimits, ABodyPastMaxBodyGets413) {
  server::Config config;
  config.http.max_body = 8 << 10;
  RunningServer server(config);
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t big = client.request("POST", "/pub/limits", {}, std::string(12 << 10, 'x'));
  ASSERT_TRUE(answered(client, big));
  EXPECT_EQ(client.stream(big).status, 413);
  EXPECT_EQ(client.stream(big).body, "413 Content Too Large: request body over http.max_body (8192 bytes)\n");
  expect_small_publish_served(client);
}

// The pool's data lane (what is not kept for control traffic) is smaller
// than the body: the body is refused, its blocks given back.
TEST(H2PublishLimits, ABodyThePoolCannotHoldGets503) {
  server::Config config;
  config.pool.block_count = 64;
  config.pool.block_size = 1024;
  config.pool.reserve = 32;
  config.pool.prefault = false;
  config.h2.stream_window = 1 << 20;
  RunningServer server(config);
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t big = client.request("POST", "/pub/limits", {}, std::string(40 << 10, 'x'));
  ASSERT_TRUE(answered(client, big));
  EXPECT_EQ(client.stream(big).status, 503);
  EXPECT_NE(client.stream(big).body.find("no buffer room"), std::string::npos) << client.stream(big).body;
  expect_small_publish_served(client);
}

}  // namespace
}  // namespace sluice::test
