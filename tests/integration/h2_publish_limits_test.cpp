// What bounds a publish over HTTP/2 (h2c POST /pub/{topic}), each with its
// answer: bodies held across a connection's streams past
// receive.budget_bytes (counted in the whole pool blocks they hold) get
// 503 with Retry-After, bodies of all connections past h2.body_blocks get
// 503 naming it, one body past http.max_body gets 413 with a line naming
// the key and the limit, a body the pool has no block for gets 503, and
// one not whole within timeouts.handshake_ms gets 408; after each the
// connection goes on and a small publish is served. A publish that asks
// for 100 Continue gets it before its body.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

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

// Each stream's first byte takes a whole block: three one-byte bodies
// held open hold three blocks, past a budget of two.
TEST(H2PublishLimits, TheReceiveBudgetCountsTheBlocksBodiesHold) {
  server::Config config;
  config.connection.receive_budget = 8 << 10;
  RunningServer server(config);
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t first = client.request("POST", "/pub/limits", {}, "a", true);
  const std::int32_t second = client.request("POST", "/pub/limits", {}, "b", true);
  const std::int32_t third = client.request("POST", "/pub/limits", {}, "c", true);
  ASSERT_TRUE(client.pump([&] { return client.stream(third).body.ends_with("\n"); }));
  EXPECT_EQ(client.stream(third).status, 503);
  EXPECT_NE(client.stream(third).body.find("receive.budget_bytes"), std::string::npos) << client.stream(third).body;
  for (const std::int32_t open : {first, second}) {
    client.send(open, "", true);
    ASSERT_TRUE(answered(client, open));
    EXPECT_EQ(client.stream(open).status, 200);
  }
  expect_small_publish_served(client);
}

// A body that alone could never fit is refused 413, not told to retry:
// here the budget is below one block, and the share below the body.
TEST(H2PublishLimits, ABodyThatAloneCanNeverFitGets413NamingTheKey) {
  {
    server::Config config;
    config.pool.block_size = 16 << 10;
    config.connection.send.max_bytes = 1 << 20;
    config.connection.receive_budget = 8 << 10;
    RunningServer server(config);
    H2TestClient client(server.port());
    ASSERT_TRUE(client.ok());
    const std::int32_t post = client.request("POST", "/pub/limits", {}, "small");
    ASSERT_TRUE(answered(client, post));
    EXPECT_EQ(client.stream(post).status, 413);
    EXPECT_NE(client.stream(post).body.find("receive.budget_bytes"), std::string::npos) << client.stream(post).body;
  }
  server::Config config;
  config.h2.body_blocks = 2;
  config.h2.stream_window = 1 << 20;
  RunningServer server(config);
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t big = client.request("POST", "/pub/limits", {}, std::string(12 << 10, 'x'));
  ASSERT_TRUE(answered(client, big));
  EXPECT_EQ(client.stream(big).status, 413);
  EXPECT_NE(client.stream(big).body.find("(h2.body_blocks)"), std::string::npos) << client.stream(big).body;
  expect_small_publish_served(client);
}

// Clients that never end their bodies, on any number of connections, hold
// no more blocks than h2.body_blocks: events and publishes over HTTP/1.1
// go on, and a body is taken again once one of them ends.
TEST(H2PublishLimits, UnfinishedBodiesOfAllConnectionsHoldNoMoreThanTheirShare) {
  server::Config config;
  config.h2.body_blocks = 4;
  RunningServer server(config);
  std::vector<std::unique_ptr<H2TestClient>> clients;
  std::vector<std::int32_t> streams;
  for (int c = 0; c < 2; ++c) {
    clients.push_back(std::make_unique<H2TestClient>(server.port()));
    ASSERT_TRUE(clients.back()->ok());
    for (int s = 0; s < 2; ++s) streams.push_back(clients.back()->request("POST", "/pub/limits", {}, "x", true));
    // A request answered after them: the bodies have their blocks before
    // the next connection asks (a connection's frames are read in order).
    const std::int32_t health = clients.back()->request("GET", "/healthz");
    ASSERT_TRUE(answered(*clients.back(), health));
    ASSERT_EQ(clients.back()->stream(health).status, 200);
  }
  H2TestClient late(server.port());
  ASSERT_TRUE(late.ok());
  const std::int32_t refused = late.request("POST", "/pub/limits", {}, "y", true);
  ASSERT_TRUE(late.pump([&] { return late.stream(refused).body.ends_with("\n"); }));
  EXPECT_EQ(late.stream(refused).status, 503);
  EXPECT_NE(late.stream(refused).body.find("(h2.body_blocks)"), std::string::npos) << late.stream(refused).body;
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/limits", "over HTTP/1.1").status, 200);
  clients[0]->send(streams[0], "", true);
  ASSERT_TRUE(answered(*clients[0], streams[0]));
  EXPECT_EQ(clients[0]->stream(streams[0]).status, 200);
  expect_small_publish_served(late);
}

// As over HTTP/1.1, the whole request must come within the request
// timeout: a body left unfinished is answered 408 and its block goes back.
TEST(H2PublishLimits, ABodyNotWholeWithinTheRequestTimeoutGets408) {
  server::Config config;
  config.handshake_timeout_ms = 200;
  config.h2.body_blocks = 1;
  RunningServer server(config);
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t stalled = client.request("POST", "/pub/limits", {}, "x", true);
  ASSERT_TRUE(client.pump([&] { return client.stream(stalled).body.ends_with("\n"); }));
  EXPECT_EQ(client.stream(stalled).status, 408);
  EXPECT_NE(client.stream(stalled).body.find("timeouts.handshake_ms"), std::string::npos)
      << client.stream(stalled).body;
  expect_small_publish_served(client);  // the one block of the share is free again
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

// A content-length past http.max_body is refused when the headers come,
// not after that much of the body (here none is ever sent: it waited for
// the request timeout, 408).
TEST(H2PublishLimits, ADeclaredLengthPastMaxBodyGets413AtItsHeaders) {
  server::Config config;
  config.http.max_body = 8 << 10;
  config.handshake_timeout_ms = 60000;
  RunningServer server(config);
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t big = client.request("POST", "/pub/limits", {{"content-length", "2097152"}}, "", true);
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
  config.h2.body_blocks = 64;  // the pool's bound, not the bodies' share
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
