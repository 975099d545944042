// Readers that stop reading, each under its send budget, fill the pool
// together, and every publish is refused. The server sheds them
// (server/pool_shedding.hpp): once the pool has refused data and they have
// taken nothing for pool.shed_after_ms, each is cut off, what it queued
// goes back to the pool, and publishing goes on. A reader that reads is
// left alone, and a reader that was shed misses nothing it cannot resume.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "h2_test_client.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::H2ClientOptions;
using transport::test::H2TestClient;

constexpr int kStalled = 3;

server::Config small_pool() {
  server::Config config;
  config.threads = 1;
  config.pool = {.block_count = 128, .block_size = 4096, .reserve = 8};
  // The budget lets each stalled reader hold far more than its share of
  // the pool: the pool, not the budget, is what runs out.
  config.connection.send.max_bytes = 1 << 20;
  config.tcp_send_buffer = 4096;
  config.pool_shed_after_ms = 200;
  return without_system_feed(config);
}

// Publishes `payload` round the topics stalled-0.. until the pool refuses
// one; returns how many it took.
int fill_until_refused(TestClient& publisher, const std::string& payload) {
  for (int i = 0; i < 2000; ++i) {
    const int status = publish(publisher, "/pub/stalled-" + std::to_string(i % kStalled), payload);
    if (status == 503) return i;
    if (status != 200) return -1;
  }
  return -1;
}

// An SSE subscriber to each of stalled-0.. with a 4 KiB receive buffer;
// fewer when one did not open.
std::vector<std::unique_ptr<SseSubscriber>> subscribe_small(std::uint16_t port, int from = 0) {
  std::vector<std::unique_ptr<SseSubscriber>> subscribers;
  for (int t = from; t < kStalled; ++t) {
    auto subscriber = std::make_unique<SseSubscriber>(port, "/sse/stalled-" + std::to_string(t), 4096);
    if (!subscriber->opened()) break;
    subscribers.push_back(std::move(subscriber));
  }
  return subscribers;
}

bool buffer_has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(PoolShedding, ReadersThatStoppedReadingAreCutOffAndPublishingGoesOn) {
  RunningServer server(small_pool());
  std::vector<std::unique_ptr<SseSubscriber>> stalled = subscribe_small(server.port());
  ASSERT_EQ(stalled.size(), static_cast<std::size_t>(kStalled));
  // Follows the first stalled topic and reads everything.
  SseSubscriber reading(server.port(), "/sse/stalled-0");
  ASSERT_TRUE(reading.opened());
  TestClient publisher(server.port());

  const int accepted = fill_until_refused(publisher, std::string(3000, 's'));
  ASSERT_GT(accepted, 30);
  ASSERT_TRUE(reading.wait_for(static_cast<std::size_t>((accepted + kStalled - 1) / kStalled)));

  // Refused, then taken once the stalled readers are shed.
  ASSERT_TRUE(wait_until([&] { return server.server().stats().shed >= kStalled; }));
  EXPECT_EQ(server.server().stats().shed, static_cast<std::uint64_t>(kStalled));
  EXPECT_EQ(publish(publisher, "/pub/stalled-0", "after"), 200);
  ASSERT_TRUE(reading.client().read_until_contains("data: after\n"));

  // A shed reader that reads again finds its events in order from the
  // first, the cut-off's hint, then the end of the stream; resuming from
  // its last id it is either replayed the rest or told it cannot be.
  SseSubscriber& first = *stalled[0];
  ASSERT_TRUE(first.client().read_until_closed());
  EXPECT_TRUE(buffer_has(first.client().buffer(), ": slow consumer, resume from the last id\n"));
  first.parse_buffered();
  ASSERT_FALSE(first.events().empty());
  for (std::size_t i = 0; i < first.events().size(); ++i) ASSERT_EQ(seq_of(first.events()[i].id), i + 1);
  SseSubscriber resumed(server.port(), "/sse/stalled-0", 0, first.events().back().id);
  ASSERT_TRUE(resumed.wait_for(1));
  const SseSubscriber::Event& next = resumed.events()[0];
  if (next.type != "sluice-reset") {
    EXPECT_EQ(seq_of(next.id), first.events().size() + 1);
  }
}

// Readers that read, a frame or two each look, while their queues stay
// full: they keep the pool held as surely as readers that stopped, and are
// shed the same way; they read their ending. The reader that keeps up on
// the same topic is left alone.
TEST(PoolShedding, ReadersThatReadButNeverCatchUpAreCutOffToo) {
  using namespace std::chrono_literals;
  server::Config config = small_pool();
  // Three budgets still pass the pool, and each reader's share of it is
  // over a quarter of its budget: a backlog, not a reader catching up.
  config.connection.send.max_bytes = 256 << 10;
  RunningServer server(config);
  std::vector<std::unique_ptr<SseSubscriber>> slow = subscribe_small(server.port());
  ASSERT_EQ(slow.size(), static_cast<std::size_t>(kStalled));
  SseSubscriber reading(server.port(), "/sse/stalled-0");
  ASSERT_TRUE(reading.opened());
  TestClient publisher(server.port());
  ASSERT_GT(fill_until_refused(publisher, std::string(3000, 'r')), 30);

  // Each slow reader takes what one read of its 4 KiB buffer holds every
  // 100 ms (a frame or more each sweep), while its topic publishes faster
  // than that into a pool that stays full.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (server.server().stats().shed < kStalled) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "shed " << server.server().stats().shed;
    for (auto& reader : slow) (void)reader->client().read_some(0ms);
    while (reading.client().read_some(0ms)) {
    }
    for (int t = 0; t < 2 * kStalled; ++t) {
      const int status = publish(publisher, "/pub/stalled-" + std::to_string(t % kStalled), std::string(3000, 'r'));
      ASSERT_TRUE(status == 200 || status == 503) << status;
    }
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(server.server().stats().shed, static_cast<std::uint64_t>(kStalled));
  EXPECT_EQ(publish(publisher, "/pub/stalled-0", "after"), 200);
  ASSERT_TRUE(reading.client().read_until_contains("data: after\n"));

  for (auto& reader : slow) {
    ASSERT_TRUE(reader->client().read_until_closed());
    EXPECT_TRUE(buffer_has(reader->client().buffer(), ": slow consumer, resume from the last id\n"));
    reader->parse_buffered();
    ASSERT_FALSE(reader->events().empty());
    for (std::size_t i = 0; i < reader->events().size(); ++i) ASSERT_EQ(seq_of(reader->events()[i].id), i + 1);
  }
}

// A WebSocket is shed as an SSE stream is, with the close a slow consumer
// gets (1008) right behind the frame its reader was in.
TEST(PoolShedding, AStalledWebSocketIsClosedAsASlowConsumer) {
  RunningServer server(small_pool());
  ws::WsTestClient client(server.port(), 4096);
  ASSERT_EQ(client.upgrade({.path = "/ws/stalled-0"}).status, 101);
  std::vector<std::unique_ptr<SseSubscriber>> others = subscribe_small(server.port(), 1);
  ASSERT_EQ(others.size(), static_cast<std::size_t>(kStalled - 1));
  TestClient publisher(server.port());
  ASSERT_GT(fill_until_refused(publisher, std::string(3000, 'w')), 30);
  ASSERT_TRUE(wait_until([&] { return server.server().stats().shed >= kStalled; }));

  int messages = 0;
  for (;;) {
    const auto frame = client.read_frame();
    ASSERT_TRUE(frame.has_value());
    if (frame->opcode == ws::kClose) {
      EXPECT_EQ(frame->close_code(), 1008);
      break;
    }
    ++messages;
  }
  EXPECT_GT(messages, 0);
  EXPECT_EQ(publish(publisher, "/pub/stalled-0", "after"), 200);
}

// Over HTTP/2 each stream is shed on its own: the streams whose window
// stays shut are reset, and the connection they share goes on serving.
TEST(PoolShedding, AnHttp2ConnectionLosesOnlyItsStalledStreams) {
  RunningServer server(small_pool());
  H2TestClient client(server.port(), H2ClientOptions{.initial_window = 0, .auto_window = false});
  ASSERT_TRUE(client.ok());
  std::vector<std::int32_t> streams;
  for (int t = 0; t < kStalled; ++t) streams.push_back(client.request("GET", "/sse/stalled-" + std::to_string(t)));
  ASSERT_TRUE(client.pump([&] {
    for (const std::int32_t s : streams) {
      if (client.stream(s).status != 200) return false;
    }
    return true;
  }));
  TestClient publisher(server.port());
  ASSERT_GT(fill_until_refused(publisher, std::string(3000, 'h')), 30);

  ASSERT_TRUE(client.pump([&] {
    for (const std::int32_t s : streams) {
      if (!client.stream(s).closed) return false;
    }
    return true;
  }));
  EXPECT_EQ(server.server().stats().shed, static_cast<std::uint64_t>(kStalled));
  // Its answer's body would wait for a window this client keeps shut: its
  // status is the answer.
  const std::int32_t post = client.request("POST", "/pub/stalled-1", {}, "after");
  ASSERT_TRUE(client.pump([&] { return client.stream(post).status != 0; }));
  EXPECT_EQ(client.stream(post).status, 200);
}

}  // namespace
}  // namespace sluice::test
