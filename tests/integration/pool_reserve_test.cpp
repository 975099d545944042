// The pool's reserve end to end: when data has taken every block it may, control
// traffic still flows from the reserve: replies, new streams' handshakes,
// heartbeats. Data is refused with a clear status, and nothing else breaks.
#include <gtest/gtest.h>

#include "h2_test_client.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

server::Config tiny_pool() {
  server::Config config;
  config.pool = {.block_count = 64, .block_size = 4096, .reserve = 4};
  config.max_connections = 16;
  config.connection.send.max_bytes = 1 << 20;  // the budget is not what stops data here: the pool is
  config.tcp_send_buffer = 4096;
  config.heartbeat_ms = 100;
  // One loop: the stalled subscriber's loop has always delivered an event
  // before the next POST is read, so a short pool can always make its
  // history give way. With two, a POST can find the other loop still behind
  // and get 503 early, a count that depends on the threads' timing.
  config.threads = 1;
  // What the reserve does is tested here, with a stalled reader that reads
  // everything in the end: shedding it (pool_shedding_test.cpp) is not.
  config.pool_shed_after_ms = 0;
  return config;
}

TEST(PoolReserve, ControlTrafficFlowsWhileDataIsRefused) {
  RunningServer server(tiny_pool());
  SseSubscriber stalled(server.port(), "/sse/flood", 4096);
  ASSERT_TRUE(stalled.opened());
  TestClient publisher(server.port());

  // Publish until the pool's data part is spent by the stalled reader's queue.
  int accepted = 0;
  int status = 200;
  while (status == 200 && accepted < 1000) {
    status = publish(publisher, "/pub/flood", std::string(1024, 'f'));
    accepted += status == 200;
  }
  ASSERT_EQ(status, 503);
  EXPECT_GT(accepted, 50);

  // Replies, handshakes and heartbeats come from the reserve.
  EXPECT_EQ(http_request(server.port(), "GET", "/healthz").status, 200);
  SseSubscriber newcomer(server.port(), "/sse/other");
  ASSERT_TRUE(newcomer.opened());
  EXPECT_TRUE(newcomer.client().read_until_contains(":\n\n", 10s));  // a heartbeat

  // The stalled reader drains: its events come back to the pool, and data
  // flows again. Nothing it was sent was lost.
  ASSERT_TRUE(stalled.wait_for(static_cast<std::size_t>(accepted)));
  for (int i = 0; i < accepted; ++i) ASSERT_EQ(seq_of(stalled.events()[i].id), static_cast<std::uint64_t>(i + 1));
  EXPECT_EQ(publish(publisher, "/pub/other", "after"), 200);
  ASSERT_TRUE(newcomer.wait_for(1));
  EXPECT_EQ(newcomer.events()[0].data, "after");
}

// The pool full of delivered history (no subscriber, so every event is kept
// only for replay) must not refuse another topic's events: the history gives
// way, a topic at a time.
TEST(PoolReserve, AnIdleTopicsHistoryMakesRoomForANewTopic) {
  RunningServer server(tiny_pool());
  TestClient publisher(server.port());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(publish(publisher, "/pub/idle", "kept for replay"), 200) << i;
  SseSubscriber newcomer(server.port(), "/sse/new");
  ASSERT_TRUE(newcomer.opened());
  for (int i = 0; i < 20; ++i) ASSERT_EQ(publish(publisher, "/pub/new", "live " + std::to_string(i)), 200) << i;
  ASSERT_TRUE(newcomer.wait_for(20));
  EXPECT_EQ(newcomer.events()[19].data, "live 19");
}

// A POST's body over HTTP/2 waits in pool blocks (over HTTP/1.1 it waits in
// the connection's buffer): the pool full of history makes room for it as
// for the event it carries. It was refused 503 ("no buffer room for the
// request body") while every HTTP/1.1 POST went through.
TEST(PoolReserve, AnIdleTopicsHistoryMakesRoomForAnHttp2PostsBody) {
  RunningServer server(tiny_pool());
  TestClient publisher(server.port());
  // Far more than the pool holds, a block or more each: history fills it.
  const std::string kept(3000, 'k');
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(publish(publisher, "/pub/idle" + std::to_string(i % 20), kept), 200) << i;
  }
  transport::test::H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  for (int i = 0; i < 20; ++i) {
    const std::int32_t post = client.request("POST", "/pub/new", {}, std::string(3000, 'x'));
    ASSERT_GT(post, 0);
    ASSERT_TRUE(client.pump([&] { return client.stream(post).closed; })) << i;
    EXPECT_EQ(client.stream(post).status, 200) << i << ": " << client.stream(post).body;
  }
}

}  // namespace
}  // namespace sluice::test
