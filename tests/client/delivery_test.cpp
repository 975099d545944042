// A slow application on the client side: the socket is read on the client's own
// thread, so a slow application either gets the newest value (latest
// slots, the reader keeps draining) or pushes back through TCP (the bounded
// queue, the reader stops reading) — never unbounded growth, never silent loss.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "client_test_support.hpp"
#include "sluice/client/publisher.hpp"
#include "sluice/client/sse_client.hpp"
#include "test_client.hpp"

namespace sluice::client::test {
namespace {

using sluice::test::RunningServer;

void start_and_wait_open(SseClient& client, std::uint16_t port, std::string_view path) {
  ASSERT_EQ(client.start(http_url(port, path)).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return client.state() == ClientState::open; }));
}

TEST(LatestDelivery, ASlowConsumerAlwaysGetsTheNewestWhileTheReaderKeepsDraining) {
  RunningServer server;
  ClientOptions options;
  options.delivery = Delivery::latest;
  SseClient client(options);
  start_and_wait_open(client, server.port(), "/sse/ticker");
  constexpr int kEvents = 1000;
  std::atomic<bool> publish_failed{false};
  std::thread publisher([&] {
    Publisher p;
    if (p.open(http_url(server.port(), "/pub/ticker")).kind != ErrorKind::none) publish_failed = true;
    for (int i = 1; i <= kEvents && !publish_failed; ++i) {
      if (p.publish("v" + std::to_string(i)).error.kind != ErrorKind::none) publish_failed = true;
      if (i % 10 == 0) std::this_thread::sleep_for(10ms);  // pacing: about 1,000 events a second
    }
  });
  std::vector<std::uint64_t> taken;
  std::uint64_t accounted = 0;  // each event taken stands for itself and those it replaced
  Event event;
  while (taken.empty() || taken.back() != kEvents) {
    const std::uint64_t handed_over = client.stats().events;
    ASSERT_EQ(client.next(event, 10s), NextStatus::event) << "after " << taken.size() << " events";
    // Newest: never older than what the reader had already handed over.
    ASSERT_GE(seq_of(event.id), handed_over);
    ASSERT_TRUE(taken.empty() || seq_of(event.id) > taken.back());
    taken.push_back(seq_of(event.id));
    accounted += event.overwritten + 1;
    std::this_thread::sleep_for(50ms);  // the application's work on one event
  }
  publisher.join();
  ASSERT_FALSE(publish_failed);
  const ClientStats stats = client.stats();
  EXPECT_EQ(accounted, static_cast<std::uint64_t>(kEvents));
  EXPECT_EQ(stats.events, static_cast<std::uint64_t>(kEvents));
  EXPECT_EQ(stats.overwritten + taken.size(), static_cast<std::uint64_t>(kEvents));
  EXPECT_EQ(stats.reader_waits, 0u);  // the reader never waited for the application
  EXPECT_LT(taken.size(), static_cast<std::size_t>(kEvents));
  std::printf("latest: took %zu of %d events, %llu overwritten\n", taken.size(), kEvents,
              static_cast<unsigned long long>(stats.overwritten));
}

TEST(QueueDelivery, AFullQueueStopsTheReaderAndEverythingArrivesOnceConsumed) {
  RunningServer server;  // its 1 MiB send budget holds the whole backlog: no cut-off
  ClientOptions options;
  options.queue_events = 16;
  options.queue_bytes = 64 * 1024;
  SseClient client(options);
  start_and_wait_open(client, server.port(), "/sse/backlog");
  constexpr int kEvents = 2000;
  const std::string payload(400, 'b');
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/backlog")).kind, ErrorKind::none);
  for (int i = 0; i < kEvents; ++i) ASSERT_EQ(publisher.publish(payload).error.kind, ErrorKind::none);

  ClientStats stats;
  ASSERT_TRUE(wait_until([&] {
    stats = client.stats();
    return stats.reader_waiting;
  }));
  EXPECT_EQ(stats.queued, 16u);
  EXPECT_LE(stats.queued_bytes, options.queue_bytes);
  // The reader stopped inside its first reads; the rest waits in TCP and in the server.
  EXPECT_LT(stats.bytes_read, static_cast<std::uint64_t>(kEvents) * payload.size() / 4);

  Event event;
  for (int i = 1; i <= kEvents; ++i) {
    ASSERT_EQ(client.next(event, 10s), NextStatus::event) << i;
    ASSERT_EQ(seq_of(event.id), static_cast<std::uint64_t>(i));
    ASSERT_EQ(event.data.size(), payload.size());
  }
  stats = client.stats();
  EXPECT_GE(stats.reader_waits, 1u);
  EXPECT_EQ(stats.connects, 1u);  // no cut-off, no reconnection: nothing lost, nothing repeated
  EXPECT_EQ(stats.events, static_cast<std::uint64_t>(kEvents));
}

TEST(QueueDelivery, StopReleasesAReaderWaitingOnAFullQueue) {
  RunningServer server;
  ClientOptions options;
  options.queue_events = 2;
  SseClient client(options);
  start_and_wait_open(client, server.port(), "/sse/stuck");
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/stuck")).kind, ErrorKind::none);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(publisher.publish("x").error.kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return client.stats().reader_waiting; }));
  client.stop();
  EXPECT_EQ(client.state(), ClientState::stopped);
  Event event;
  EXPECT_EQ(client.next(event, 0ms), NextStatus::event);  // what was received stays readable
  EXPECT_EQ(client.next(event, 0ms), NextStatus::event);
  EXPECT_EQ(client.next(event, 10s), NextStatus::ended);
  EXPECT_EQ(seq_of(client.last_id()), 2u);  // the event it could not hand over is not skipped
}

}  // namespace
}  // namespace sluice::client::test
