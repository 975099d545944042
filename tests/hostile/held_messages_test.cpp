// A WebSocket message the server keeps after decoding it is charged to the
// connection's memory account like the message being joined: a publish
// held while the pool has no room for it, and a message whose publish
// waits for an authorization decision given later. Either copy would
// otherwise let a client hold a second ws.max_message of memory outside
// every limit, for as long as the pool stays full or the decision takes.
// Past limits.connection_bytes the client gets 1009 naming the key; a
// message within it is still kept, and published once it can be.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "eventually.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

constexpr std::size_t kKiB = 1024;
// The decoder keeps 16 KiB uncharged, and so does the kept copy; over
// 64 KiB of account, a message of 56 KiB fits once (40 KiB charged) but
// not twice, and one of 24 KiB fits twice.
constexpr std::size_t kConnectionBytes = 64 * kKiB;
constexpr std::size_t kTooLargeToKeep = 56 * kKiB;
constexpr std::size_t kSmallEnoughToKeep = 24 * kKiB;

std::string close_reason(const ServerFrame& close) { return close.payload.size() > 2 ? close.payload.substr(2) : ""; }

// A pool a stalled subscriber fills in a few dozen publishes.
server::Config tiny_pool_small_account() {
  server::Config config;
  config.pool = {.block_count = 64, .block_size = 4096, .reserve = 4};
  config.max_connections = 16;
  config.threads = 1;  // the reader's loop is the stalled reader's (fill_pool)
  config.connection.send.max_bytes = 1 << 20;  // the pool, not the budget, stops data here
  config.tcp_send_buffer = 4096;
  config.connection.memory_bytes = kConnectionBytes;
  // The stalled reader keeps the pool full for the whole test, however
  // slowly a loaded machine runs it: shed, it would give the pool back and
  // the publish would not be held.
  config.pool_shed_after_ms = 0;
  return config;
}

// Publishes until the pool refuses (503, Retry-After: 1), and the pool
// stays full. A 503 that says the loop was behind on the topic
// (Retry-After: 0) is sent again: it can come while the pool has room.
// And a loop that is behind may, after the refusal, still write events it
// took before into the stalled reader's socket; the history may then give
// those up to the next publish. So after each round it waits until
// `reader`, which reads everything, has every event (the loop has caught
// up), and fills again, until a round adds none. Either happens on a
// loaded machine, and a message meant to be held for room would then be
// published at once.
int fill_pool(TestClient& publisher, SseSubscriber& reader) {
  int accepted = 0;
  for (int round = 0; round < 100; ++round) {
    int added = 0;
    for (int status = 200; status == 200 && accepted + added < 1000;) {
      const std::string body = "event " + std::to_string(accepted + added) + std::string(1000, 'f');
      status = publish_retrying_busy(publisher, "/pub/flood", body);
      added += status == 200;
    }
    accepted += added;
    if (!reader.wait_for(static_cast<std::size_t>(accepted))) return 0;
    if (added == 0) return accepted;
  }
  return 0;
}

TEST(HeldMessageMemory, APublishHeldForPoolRoomIsChargedAndRefusedPastTheConnectionsShare) {
  RunningServer server(tiny_pool_small_account());
  SseSubscriber stalled(server.port(), "/sse/flood", 4096);
  ASSERT_TRUE(stalled.opened());
  SseSubscriber reader(server.port(), "/sse/flood");
  ASSERT_TRUE(reader.opened());
  TestClient poster(server.port());
  const int accepted = fill_pool(poster, reader);
  ASSERT_GT(accepted, 0);

  // Joining it fits the account; keeping a copy of it while the pool is
  // full does not.
  {
    WsTestClient large(server.port());
    ASSERT_TRUE(large.open("/pub/flood"));
    large.send({.opcode = kText, .payload = std::string(kTooLargeToKeep, 'L')});
    const std::optional<ServerFrame> close = large.read_frame();
    ASSERT_TRUE(close) << "the publish was held uncharged";
    EXPECT_EQ(close->opcode, kClose);
    EXPECT_EQ(close->close_code(), 1009);
    EXPECT_EQ(close_reason(*close), "message over this connection's memory (limits.connection_bytes)");
    EXPECT_GE(server.server().memory_stats().refused_by_connection, 1u);
  }
  ASSERT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }));

  // A smaller one is kept, charged while it waits, and published once the
  // stalled reader makes room. The decoder's buffer goes back as soon as
  // the message is copied out, so what is charged while it waits is the
  // copy alone, and nothing once it is published: the connection is back
  // to its idle size.
  WsTestClient small(server.port());
  ASSERT_TRUE(small.open("/pub/flood"));
  const std::string kept(kSmallEnoughToKeep, 's');
  small.send({.opcode = kText, .payload = kept});
  ASSERT_TRUE(eventually([&] { return server.server().stats().publishes_held > 0; }));
  const std::size_t copy = kSmallEnoughToKeep - 16 * kKiB;
  ASSERT_TRUE(eventually([&] { return server.server().memory_stats().charged == copy; }))
      << "charged while held: " << server.server().memory_stats().charged;
  ASSERT_TRUE(stalled.wait_for(static_cast<std::size_t>(accepted) + 1));
  EXPECT_EQ(stalled.events()[static_cast<std::size_t>(accepted)].data, kept);
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged after the publish: " << server.server().memory_stats().charged;
  // It goes on publishing, small messages costing nothing.
  small.send({.opcode = kText, .payload = "after"});
  ASSERT_TRUE(stalled.wait_for(static_cast<std::size_t>(accepted) + 2));
  EXPECT_EQ(server.server().memory_stats().charged, 0u);
}

// Publishing to "wait*" is decided later, by a decision this test never
// gives: the message waits, kept, for as long as the connection lasts.
TEST(HeldMessageMemory, AMessageWaitingForItsDecisionIsChargedAndRefusedPastTheConnectionsShare) {
  std::vector<server::AuthReply> never_answered;  // the loop's only; outlives the server
  server::Config config;
  config.threads = 1;
  config.connection.memory_bytes = kConnectionBytes;
  RunningServer server(config, [&](server::Server& s) {
    s.authorize([&](const server::AuthRequest& r) {
      if (r.action != server::Action::publish || !r.topic.starts_with("wait")) return server::AuthDecision::allow();
      never_answered.push_back(r.answer_later());
      return server::AuthDecision::later();
    });
  });

  WsTestClient small(server.port());
  ASSERT_TRUE(small.open("/ws/wait.small"));
  small.send({.opcode = kText, .payload = std::string(kSmallEnoughToKeep, 's')});
  // The decoder gives its buffer back once the message is copied out:
  // what is charged now is the copy.
  ASSERT_TRUE(eventually([&] { return server.server().memory_stats().charged >= kSmallEnoughToKeep - 16 * kKiB; }))
      << "the waiting message is not charged";

  WsTestClient large(server.port());
  ASSERT_TRUE(large.open("/ws/wait.large"));
  large.send({.opcode = kText, .payload = std::string(kTooLargeToKeep, 'L')});
  const std::optional<ServerFrame> close = large.read_frame();
  ASSERT_TRUE(close) << "the waiting message was kept uncharged";
  EXPECT_EQ(close->opcode, kClose);
  EXPECT_EQ(close->close_code(), 1009);
  EXPECT_EQ(close_reason(*close), "message over this connection's memory (limits.connection_bytes)");
}

}  // namespace
}  // namespace sluice::test::ws
