// Resume without loss, end to end: a fifo subscriber the server cuts off,
// and a client that aborts its own connections, both resume by
// Last-Event-ID and see every id once, in order.
//
// The exactly-once assertions need the server's replay (EPOCH:SEQ ids and
// Last-Event-ID history); against a server without it they are skipped or
// weakened to "in order, nothing twice", as each test says.
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

// A server whose fifo budget is small, so that a subscriber that stops
// reading is cut off after a few hundred KiB, and that tells it to come
// back quickly.
server::Config cutting_server() {
  server::Config config;
  config.connection.send.max_bytes = 64 * 1024;
  config.tcp_send_buffer = 4096;
  config.tcp_notsent_lowat = 1024;
  config.linger_timeout_ms = 200;
  config.sse_retry_ms = 20;
  config.policy.slow_retry_ms = 20;
  config.hub.history_events = 5000;
  config.hub.history_bytes = 16 << 20;
  return config;
}

// Joins a helper thread however a test ends: a failed assertion returns
// early, and first tells the thread to give up.
struct JoinOnExit {
  std::thread& thread;
  std::atomic<bool>& give_up;
  ~JoinOnExit() {
    if (!thread.joinable()) return;
    give_up = true;
    thread.join();
  }
};

// Replay came with ids of the form EPOCH:SEQ.
bool server_replays(std::uint16_t port) {
  Publisher probe;
  if (probe.open(http_url(port, "/pub/replay-probe")).kind != ErrorKind::none) return false;
  return probe.publish("probe").id.find(':') != std::string::npos;
}

TEST(SseResume, AFifoSubscriberCutOffForBeingSlowComesBackAndResumes) {
  RunningServer server(cutting_server());
  const bool replay = server_replays(server.port());
  ClientOptions options;
  options.queue_events = 4;
  options.receive_buffer = 64 * 1024;
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(server.port(), "/sse/log")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return client.state() == ClientState::open; }));
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/log")).kind, ErrorKind::none);
  constexpr std::uint64_t kBacklog = 2000;
  const std::string payload(1024, 'l');
  // 2 MiB while the application takes nothing: far past the budget.
  for (std::uint64_t i = 0; i < kBacklog; ++i) ASSERT_EQ(publisher.publish(payload).error.kind, ErrorKind::none);

  std::vector<std::uint64_t> ids;
  Event event;
  const auto take_until = [&](const std::function<bool()>& done) {
    for (int quiet = 0; !done() && quiet < 100;) {  // until 10 s pass with no event
      if (client.next(event, 100ms) != NextStatus::event) {
        ++quiet;
        continue;
      }
      quiet = 0;
      ASSERT_EQ(event.kind, EventKind::message);
      ASSERT_TRUE(ids.empty() || seq_of(event.id) > ids.back()) << "out of order or twice: " << event.id;
      ids.push_back(seq_of(event.id));
    }
  };
  take_until([&] { return client.stats().connects >= 2 && client.state() == ClientState::open; });
  ASSERT_GE(client.stats().connects, 2u) << "the server never cut the slow subscriber off";
  EXPECT_EQ(client.error().kind, ErrorKind::closed);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(publisher.publish("after").error.kind, ErrorKind::none);
  take_until([&] { return !ids.empty() && ids.back() == kBacklog + 10; });
  ASSERT_EQ(ids.back(), kBacklog + 10);
  if (replay) {
    ASSERT_EQ(ids.size(), kBacklog + 10) << "replay should have filled the gap";
    for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], i + 1);
  } else {
    EXPECT_LT(ids.size(), kBacklog + 10) << "a server without replay loses what it published during the cut";
  }
}

TEST(SseResume, TwentyThousandEventsThroughRepeatedCutsArriveExactlyOnceInOrder) {
  RunningServer server(cutting_server());
  if (!server_replays(server.port())) GTEST_SKIP() << "the server has no replay yet (its ids are not EPOCH:SEQ)";
  ClientOptions options;
  options.queue_events = 8;
  options.receive_buffer = 32 * 1024;
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(server.port(), "/sse/stream")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return client.state() == ClientState::open; }));

  constexpr std::uint64_t kEvents = 20000;
  constexpr std::uint64_t kMaxLead = 3000;  // the publisher stays within the server's history of the reader
  std::atomic<std::uint64_t> published{0};
  std::atomic<std::uint64_t> taken{0};
  std::atomic<bool> failed{false};
  std::thread publisher([&] {
    Publisher p;
    failed = p.open(http_url(server.port(), "/pub/stream")).kind != ErrorKind::none;
    const std::string payload(200, 's');
    for (std::uint64_t i = 1; i <= kEvents && !failed; ++i) {
      if (!wait_until([&] { return i - taken.load() <= kMaxLead || failed; }, 60s)) failed = true;
      if (p.publish(payload).error.kind != ErrorKind::none) failed = true;
      published = i;
    }
  });

  const JoinOnExit join_publisher{publisher, failed};
  int aborts = 0;
  int stalls = 0;
  Event event;
  for (std::uint64_t expected = 1; expected <= kEvents && !failed; ++expected) {
    ASSERT_EQ(client.next(event, 20s), NextStatus::event) << "waiting for " << expected;
    ASSERT_EQ(event.kind, EventKind::message) << event.data;
    ASSERT_EQ(seq_of(event.id), expected);
    taken = expected;
    if (expected % 2500 == 0) {
      client.reconnect();  // a client-side abort
      ++aborts;
    } else if (expected % 2500 == 1250 && expected + kMaxLead <= kEvents) {
      // Stall until the publisher is kMaxLead ahead: 600 KB the reader did
      // not take, far past the 64 KiB budget. A live stream is cut off; one
      // still taking its replay a page at a time (after an abort, with the
      // publisher ahead of it since) holds no more than its page and
      // waits, and goes on paging when it reads.
      ASSERT_TRUE(wait_until([&] { return published.load() >= expected + kMaxLead || failed; }, 60s))
          << "published " << published.load() << " taken " << taken.load() << " expected " << expected;
      ++stalls;
    }
  }
  publisher.join();
  ASSERT_FALSE(failed);
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.events, kEvents);
  EXPECT_GE(stats.connects, static_cast<std::uint64_t>(1 + aborts));
  // The first stall is on the first stream, live: it is cut off.
  EXPECT_GE(server.server().stats().slow_disconnects, 1u);
  std::printf("resume: %llu events over %llu connections (%d aborts, %d stalls)\n",
              static_cast<unsigned long long>(kEvents), static_cast<unsigned long long>(stats.connects), aborts,
              stalls);
}

// A restart empties the history (it lives in memory) and starts a new
// epoch: the client, resuming with an id of the old run, is told so by a
// reset notice before any event of the new run, and misses nothing on
// either side of it.
TEST(SseResume, AServerRestartIsAnnouncedAndEachRunArrivesWhole) {
  RunningServer server(cutting_server());
  if (!server_replays(server.port())) GTEST_SKIP() << "the server has no replay yet (its ids are not EPOCH:SEQ)";
  SseClient client;
  ASSERT_EQ(client.start(http_url(server.port(), "/sse/runs")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return client.state() == ClientState::open; }));
  constexpr std::uint64_t kPerRun = 2000;
  Event event;
  for (int run = 0; run < 2; ++run) {
    Publisher publisher;
    ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/runs")).kind, ErrorKind::none);
    std::atomic<bool> give_up{false};
    std::thread publishing([&] {
      for (std::uint64_t i = 0; i < kPerRun && !give_up; ++i) (void)publisher.publish("event");
    });
    const JoinOnExit join{publishing, give_up};
    std::string epoch;
    for (std::uint64_t expected = 1; expected <= kPerRun; ++expected) {
      ASSERT_EQ(client.next(event, 20s), NextStatus::event) << "run " << run << " waiting for " << expected;
      ASSERT_EQ(event.kind, EventKind::message) << event.data;
      ASSERT_EQ(seq_of(event.id), expected);
      if (epoch.empty()) epoch = event.id.substr(0, event.id.find(':'));
      ASSERT_EQ(event.id.substr(0, event.id.find(':')), epoch) << "one run, one epoch";
    }
    if (run == 1) break;
    server.restart();
    // The client comes back on its own, resuming with the old run's id.
    ASSERT_EQ(client.next(event, 20s), NextStatus::event);
    ASSERT_EQ(event.kind, EventKind::reset) << event.data;
    EXPECT_NE(event.data.find("other-epoch"), std::string::npos) << event.data;
  }
}

TEST(SseResume, AnIdFromAnotherServerRunGetsAResetNoticeFirst) {
  RunningServer server;
  if (!server_replays(server.port())) GTEST_SKIP() << "the server has no replay yet (its ids are not EPOCH:SEQ)";
  SseClient client;
  ASSERT_EQ(client.start(http_url(server.port(), "/sse/t"), "previousrun:2").kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return client.state() == ClientState::open; }));
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/t")).kind, ErrorKind::none);
  ASSERT_EQ(publisher.publish("live").error.kind, ErrorKind::none);
  Event event;
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.kind, EventKind::reset);
  EXPECT_EQ(event.topic, "t");
  EXPECT_NE(event.data.find("other-epoch"), std::string::npos) << event.data;
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.kind, EventKind::message);
  EXPECT_EQ(event.data, "live");
  EXPECT_EQ(client.last_id(), event.id);
}

}  // namespace
}  // namespace sluice::client::test
