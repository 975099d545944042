// The embedded push server allocates nothing once started: a connection,
// its request, its subscription, and every publish and flush after run on
// the memory handed in at start-up.
#include <gtest/gtest.h>

#include <string>

#include "alloc_counter.hpp"
#include "buf/pool.hpp"
#include "embedded/push_server.hpp"
#include "memory_link.hpp"

namespace sluice::embedded {
namespace {

TEST(PushServerSteadyState, ConnectingSubscribingPublishingAndFlushingAllocateNothing) {
  alignas(buf::Pool::kArenaAlign) static std::byte arena[buf::Pool::arena_bytes({.block_count = 40, .block_size = 196})];
  buf::Pool pool({.block_count = 40, .block_size = 196, .reserve = 8}, arena);
  static HistoryRecord history[8];
  PushServer server(pool, {.heartbeat_polls = 2, .history = history});
  PushConnection sse_connection;
  PushConnection ws_connection;
  PushConnection returning_connection;
  const std::string data(120, 'd');

  test::MemoryLink sse(server, sse_connection);
  test::MemoryLink ws(server, ws_connection);
  test::MemoryLink returning(server, returning_connection);
  sse.reserve_wire(4096);
  ws.reserve_wire(256 * 1024);
  returning.reserve_wire(16 * 1024);

  const std::uint64_t before = test::allocations();
  sse.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n\r\n");
  ws.receive("GET /ws/t HTTP/1.1\r\nHost: d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  ASSERT_EQ(server.subscribers("t"), 2u);
  sse.set_room(0);  // one subscriber falls behind: its policy drops, allocating nothing either
  std::size_t dropped = 0;
  for (int i = 0; i < 1000; ++i) {
    dropped += server.publish("t", data).dropped;
    if (i % 10 == 9) server.flush();
  }
  // A subscriber of two topics comes back from an id the history no
  // longer has: told so, then given what is kept; heartbeats when idle.
  returning.receive("GET /sse/t?topic=u HTTP/1.1\r\nHost: d\r\nLast-Event-ID: 900\r\n\r\n");
  server.flush();
  for (int i = 0; i < 4; ++i) server.poll(returning_connection);
  sse.peer_closes();
  EXPECT_EQ(test::allocations() - before, 0u);
  EXPECT_NE(returning.wire().find("event: sluice-reset"), std::string::npos);
  EXPECT_NE(returning.wire().find("id: 1000\n"), std::string::npos);
  EXPECT_NE(returning.wire().find(":\n\n"), std::string::npos);
  EXPECT_GT(dropped, 0u);
  EXPECT_GT(ws.wire().size(), 1000 * data.size());
  sse.set_room(SIZE_MAX);
  sse.flush();
  EXPECT_TRUE(sse.closed());
}

}  // namespace
}  // namespace sluice::embedded
