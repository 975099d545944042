// Once warm, publishing an event and delivering it to every
// subscriber performs no heap allocation — measured end to end, through the
// HTTP parser, the hub, the pool, the out queues and the sockets.
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "alloc_counter.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

// Reads from `fd` until the two-byte marker `a b` has been seen `want`
// times. Uses a stack buffer only, so the reading allocates nothing.
bool count_markers(int fd, char a, char b, std::size_t want) {
  char chunk[65536];
  char prev = 0;
  std::size_t seen = 0;
  while (seen < want) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    for (ssize_t i = 0; i < n; ++i) {
      if (prev == a && chunk[i] == b) ++seen;
      prev = chunk[i];
    }
  }
  return true;
}

TEST(SteadyState, PublishingAndDeliveringAllocatesNothing) {
  // A round never queues more for one subscriber than a new connection's
  // ring holds (64), so no round needs a ring to grow however the loops'
  // drains fall; the warm-up sizes everything else.
  constexpr int kBatch = 50;
  constexpr int kRounds = 20;
  RunningServer server(without_system_feed());
  std::vector<std::unique_ptr<SseSubscriber>> subs;
  for (int i = 0; i < 10; ++i) {
    subs.push_back(std::make_unique<SseSubscriber>(server.port(), "/sse/steady"));
    ASSERT_TRUE(subs.back()->opened());
  }
  std::string batch;
  for (int i = 0; i < kBatch; ++i) {
    batch += "POST /pub/steady?event=tick HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 64\r\n\r\n" + std::string(64, 'e');
  }
  TestClient publisher(server.port());
  const auto round = [&] {
    publisher.send(batch);
    bool ok = count_markers(publisher.fd(), '}', '\n', kBatch);  // one JSON reply per POST
    for (auto& sub : subs) ok = count_markers(sub->client().fd(), '\n', '\n', kBatch) && ok;
    return ok;
  };
  const SteadyState run = run_steady_state(kRounds, round);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while publishing " << kBatch * kRounds << " events to "
                        << subs.size() << " subscribers";
}

// The same through WebSocket: a /ws client publishes with JSON requests
// (each read by the codec and answered with an ack), and the events reach
// /ws/{topic} subscribers as messages and /ws subscribers as envelopes.
TEST(SteadyState, PublishingOverWsJsonAndDeliveringToWebSocketsAllocatesNothing) {
  constexpr int kBatch = 50;
  constexpr int kRounds = 20;
  RunningServer server(without_system_feed());
  std::vector<std::unique_ptr<ws::WsTestClient>> subs;
  for (int i = 0; i < 3; ++i) {
    subs.push_back(std::make_unique<ws::WsTestClient>(server.port()));
    ASSERT_TRUE(subs.back()->open("/ws/steady"));
  }
  for (int i = 0; i < 3; ++i) {
    subs.push_back(std::make_unique<ws::WsTestClient>(server.port()));
    ASSERT_TRUE(subs.back()->open("/ws"));
    subs.back()->send({.opcode = ws::kText, .payload = R"({"op":"subscribe","topic":"steady","req":0})"});
    const std::optional<ws::ServerFrame> ack = subs.back()->read_message();
    ASSERT_TRUE(ack && ack->payload.find("\"ok\":true") != std::string::npos);
  }
  ws::WsTestClient publisher(server.port());
  ASSERT_TRUE(publisher.open("/ws"));
  std::string batch;
  for (int i = 0; i < kBatch; ++i) {
    // Data ends with the marker "#!"; each ack ends with "\"}".
    batch += ws::wire({.opcode = ws::kText,
                       .payload = R"({"op":"publish","topic":"steady","event":"tick","data":")" + std::string(64, 'e') +
                                  R"(#!","req":)" + std::to_string(i) + "}"});
  }
  const auto round = [&] {
    publisher.send_raw(batch);
    bool ok = count_markers(publisher.socket().fd(), '"', '}', kBatch);
    for (auto& sub : subs) ok = count_markers(sub->socket().fd(), '#', '!', kBatch) && ok;
    return ok;
  };
  const SteadyState run = run_steady_state(kRounds, round);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while publishing " << kBatch * kRounds << " /ws requests to "
                        << subs.size() << " WebSocket subscribers";
}

// `n` fifo SSE subscribers of "steady"; each is to be checked opened().
std::vector<std::unique_ptr<SseSubscriber>> fifo_subscribers(std::uint16_t port, int n) {
  std::vector<std::unique_ptr<SseSubscriber>> subs;
  for (int i = 0; i < n; ++i) subs.push_back(std::make_unique<SseSubscriber>(port, "/sse/steady?policy=fifo"));
  return subs;
}

// Publishes 50 events a round from this thread, with `publish(data)` made
// by `make(server)`, to 10 fifo SSE subscribers whose send budget of 64
// frames makes a waiting publisher's window 16 events, and counts the heap
// allocations of the measured rounds.
template <class MakePublish>
void expect_waiting_publishes_allocate_nothing(MakePublish make, std::string_view how) {
  constexpr int kBatch = 50;
  constexpr int kRounds = 20;
  server::Config config = without_system_feed();
  config.connection.send.max_frames = 64;
  RunningServer server(config);
  const auto subs = fifo_subscribers(server.port(), 10);
  for (const auto& sub : subs) ASSERT_TRUE(sub->opened());
  const std::string data(64, 'e');
  auto publish = make(server.server());  // gone before the server
  const auto round = [&] {
    bool ok = true;
    for (int i = 0; i < kBatch; ++i) ok = publish(data).status == server::PublishStatus::ok && ok;
    for (auto& sub : subs) ok = count_markers(sub->client().fd(), '\n', '\n', kBatch) && ok;
    return ok;
  };
  const SteadyState run = run_steady_state(kRounds, round);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while publishing " << kBatch * kRounds << " events " << how
                                 << " to " << subs.size() << " subscribers";
}

// The same from an application thread that waits for room
// (publish_waiting): each round's 50 publishes wait for the loop to
// deliver, sleeping on the gate and woken by the loop.
TEST(SteadyState, PublishingWaitingForRoomFromAnApplicationThreadAllocatesNothing) {
  expect_waiting_publishes_allocate_nothing(
      [](server::Server& server) {
        return [&server](std::string_view data) {
          return server.publish_waiting("steady", data, {.timeout = 5s}, "tick");
        };
      },
      "waiting for room");
}

// The same through a Publisher of the topic, whose own scratch builds the
// frames (made before the warm-up, as an application makes it once).
TEST(SteadyState, PublishingThroughAPublisherOfTheTopicAllocatesNothing) {
  expect_waiting_publishes_allocate_nothing(
      [](server::Server& server) {
        return [publisher = server.publisher("steady")](std::string_view data) mutable {
          return publisher.publish_waiting(data, {.timeout = 5s}, "tick");
        };
      },
      "through a Publisher");
}

// The same events in batches of 50 (publish_batch_waiting): each batch is
// cut into looks for room and waits by the 16-event window.
TEST(SteadyState, PublishingBatchesWaitingForRoomAllocatesNothing) {
  constexpr int kBatch = 50;
  constexpr int kRounds = 20;
  server::Config config = without_system_feed();
  config.connection.send.max_frames = 64;
  RunningServer server(config);
  const auto subs = fifo_subscribers(server.port(), 10);
  for (const auto& sub : subs) ASSERT_TRUE(sub->opened());
  const std::string data(64, 'e');
  const std::vector<server::BatchEvent> batch(kBatch, server::BatchEvent{data, "tick"});
  const auto round = [&] {
    const server::BatchResult r = server.server().publish_batch_waiting("steady", batch, {.timeout = 5s});
    bool ok = r.status == server::PublishStatus::ok && r.published == kBatch;
    for (auto& sub : subs) ok = count_markers(sub->client().fd(), '\n', '\n', kBatch) && ok;
    return ok;
  };
  const SteadyState run = run_steady_state(kRounds, round);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while publishing " << kBatch * kRounds
                                 << " events in batches, waiting for room, to " << subs.size() << " subscribers";
}

}  // namespace
}  // namespace sluice::test
