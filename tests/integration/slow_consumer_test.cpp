// Slow and stalled subscribers under each policy: the slow one
// stays within its budget and is told of every loss; nobody else waits.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>

#include "test_client.hpp"

namespace sluice::test {
namespace {

std::uint64_t id_of(const SseSubscriber::Event& e) { return seq_of(e.id); }

std::uint64_t json_number(const std::string& json, const std::string& field) {
  const auto at = json.find("\"" + field + "\":");
  if (at == std::string::npos) return 0;
  std::size_t pos = at + field.size() + 3;
  if (json[pos] == '"') ++pos;
  return std::strtoull(json.c_str() + pos, nullptr, 10);
}

// Splits what a subscriber got into events and the loss it was told of.
struct Received {
  std::vector<std::uint64_t> ids;
  std::uint64_t reported_lost = 0;
};

Received tally(const std::vector<SseSubscriber::Event>& events) {
  Received r;
  for (const auto& e : events) {
    if (e.type == "sluice-dropped") {
      r.reported_lost += json_number(e.data, "dropped");
    } else {
      r.ids.push_back(id_of(e));
    }
  }
  return r;
}

bool strictly_increasing(const std::vector<std::uint64_t>& ids) {
  for (std::size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] <= ids[i - 1]) return false;
  }
  return true;
}

server::Config small_kernel_buffers() {
  server::Config config;
  // One loop: a publish is answered after its event was handed to every
  // subscriber, so what a reader sees follows from what was published, not
  // from when another loop got round to it.
  config.threads = 1;
  config.tcp_send_buffer = 4096;
  config.tcp_notsent_lowat = 1024;
  config.linger_timeout_ms = 500;
  return config;
}

TEST(SlowConsumer, LatestKeepsASlowReaderWithinAFewEventsOfTheNewest) {
  RunningServer server(small_kernel_buffers());
  SseSubscriber slow(server.port(), "/sse/video?policy=latest", 4096);
  ASSERT_TRUE(slow.opened());
  TestClient publisher(server.port());
  const std::string frame(64 * 1024, 'f');  // a video frame far larger than the kernel's buffers
  constexpr int kFrames = 200;
  constexpr int kReadEvery = 4;  // the reader takes one frame per four published
  std::uint64_t worst_lag = 0;
  for (int i = 1; i <= kFrames; ++i) {
    ASSERT_EQ(publish(publisher, "/pub/video", frame), 200);
    if (i % kReadEvery != 0) continue;
    const std::size_t before = slow.events().size();
    ASSERT_TRUE(slow.wait_for(before + 1));
    for (std::size_t e = before; e < slow.events().size(); ++e) {
      if (slow.events()[e].type == "message") worst_lag = std::max(worst_lag, i - id_of(slow.events()[e]));
    }
  }
  // It ends current: the last frame published is the last one it gets.
  ASSERT_TRUE(slow.client().read_until(
      [&](const std::string&) {
        slow.parse_buffered();
        const Received r = tally(slow.events());
        return !r.ids.empty() && r.ids.back() == kFrames && r.ids.size() + r.reported_lost == kFrames;
      },
      20s));
  const Received r = tally(slow.events());
  EXPECT_TRUE(strictly_increasing(r.ids));
  EXPECT_LT(r.ids.size(), static_cast<std::size_t>(kFrames));  // it skipped
  EXPECT_EQ(r.ids.size() + r.reported_lost, static_cast<std::size_t>(kFrames));  // and was told of every skip
  // Each frame it read was at most two read intervals behind the newest.
  EXPECT_LE(worst_lag, static_cast<std::uint64_t>(2 * kReadEvery + 2));
  std::printf("latest: read %zu of %d frames, worst lag %llu frames behind the newest\n", r.ids.size(), kFrames,
              static_cast<unsigned long long>(worst_lag));
}

TEST(SlowConsumer, LatestKeepsTheNewestValueOfEveryKey) {
  RunningServer server(small_kernel_buffers());
  SseSubscriber dashboard(server.port(), "/sse/sensors?policy=latest", 4096);
  ASSERT_TRUE(dashboard.opened());
  TestClient publisher(server.port());
  const std::string padding(2000, '.');
  for (int round = 0; round < 100; ++round) {
    for (const char* key : {"a", "b", "c"}) {
      const std::string target = std::string("/pub/sensors?key=") + key;
      ASSERT_EQ(publish(publisher, target, std::string(key) + "=" + std::to_string(round) + padding), 200);
    }
  }
  std::map<char, int> newest;
  ASSERT_TRUE(dashboard.client().read_until(
      [&](const std::string&) {
        dashboard.parse_buffered();
        for (const auto& e : dashboard.events()) {
          if (e.type == "message") newest[e.data[0]] = std::max(newest[e.data[0]], std::atoi(e.data.c_str() + 2));
        }
        const Received r = tally(dashboard.events());
        return newest['a'] == 99 && newest['b'] == 99 && newest['c'] == 99 && r.ids.size() + r.reported_lost == 300;
      },
      20s));
  const Received r = tally(dashboard.events());
  EXPECT_LT(r.ids.size(), 300u);
  EXPECT_EQ(r.ids.size() + r.reported_lost, 300u);
}

// Events that reach a loop together (pipelined publishes, read and handled
// in one go) are not stale to a reader with room for them: `latest` replaces
// only what a write could not take. The window is off so that the kernel,
// not the reader's pace, is what decides; the reader's buffer takes all.
TEST(SlowConsumer, LatestGivesAReaderWithRoomEveryEventThatCameInTogether) {
  server::Config config;
  config.threads = 1;
  config.policy.latest_window_frames = 0;
  RunningServer server(config);
  SseSubscriber reader(server.port(), "/sse/ticks?policy=latest");
  ASSERT_TRUE(reader.opened());
  TestClient publisher(server.port());
  constexpr int kEvents = 50;
  std::string pipelined;
  for (int i = 1; i <= kEvents; ++i) pipelined += post_request("/pub/ticks", "tick " + std::to_string(i));
  publisher.send(pipelined);
  for (int i = 1; i <= kEvents; ++i) ASSERT_EQ(read_reply(publisher).status, 200);
  ASSERT_TRUE(reader.client().read_until(
      [&](const std::string&) {
        reader.parse_buffered();
        const Received r = tally(reader.events());
        return r.ids.size() + r.reported_lost >= static_cast<std::size_t>(kEvents);
      },
      20s));
  const Received r = tally(reader.events());
  EXPECT_EQ(r.reported_lost, 0u);
  EXPECT_EQ(r.ids.size(), static_cast<std::size_t>(kEvents));
  EXPECT_TRUE(strictly_increasing(r.ids));
  EXPECT_EQ(server.server().stats().events_dropped, 0u);
}

TEST(SlowConsumer, FifoCutsOffAtTheBudgetWithoutLosingAnything) {
  server::Config config = small_kernel_buffers();
  config.connection.send.max_bytes = 64 * 1024;
  config.policy.slow_retry_ms = 7000;
  config.linger_timeout_ms = 10000;  // the cut-off stream waits for its reader, however slow the publishing
  RunningServer server(config);
  SseSubscriber stalled(server.port(), "/sse/log", 4096);
  ASSERT_TRUE(stalled.opened());
  TestClient publisher(server.port());
  for (int i = 0; i < 300; ++i) ASSERT_EQ(publish(publisher, "/pub/log", std::string(1024, 'l')), 200);
  ASSERT_TRUE(stalled.client().read_until_closed());
  stalled.parse_buffered();
  const Received r = tally(stalled.events());
  ASSERT_FALSE(r.ids.empty());
  EXPECT_LT(r.ids.size(), 300u);
  EXPECT_EQ(r.reported_lost, 0u);
  for (std::size_t i = 0; i < r.ids.size(); ++i) ASSERT_EQ(r.ids[i], i + 1);  // a prefix with no gap
  ASSERT_FALSE(stalled.retries().empty());
  EXPECT_EQ(stalled.retries().back(), 7000u);  // the back-off hint came last
}

TEST(SlowConsumer, DropOldestTellsTheReaderWhatItLost) {
  server::Config config = small_kernel_buffers();
  config.connection.send.max_bytes = 16 * 1024;
  RunningServer server(config);
  SseSubscriber stalled(server.port(), "/sse/t?policy=drop-oldest", 4096);
  ASSERT_TRUE(stalled.opened());
  SseSubscriber fast(server.port(), "/sse/t");
  ASSERT_TRUE(fast.opened());
  TestClient publisher(server.port());
  for (int i = 1; i <= 200; ++i) {
    ASSERT_EQ(publish(publisher, "/pub/t", std::string(512, 'd')), 200);
    if (i % 10 == 0) {
      ASSERT_TRUE(fast.wait_for(static_cast<std::size_t>(i)));  // the fast reader keeps up
    }
  }
  ASSERT_TRUE(stalled.client().read_until(
      [&](const std::string&) {
        stalled.parse_buffered();
        const Received r = tally(stalled.events());
        return !r.ids.empty() && r.ids.back() == 200 && r.ids.size() + r.reported_lost == 200;
      },
      20s));
  const Received r = tally(stalled.events());
  EXPECT_TRUE(strictly_increasing(r.ids));
  EXPECT_GT(r.reported_lost, 0u);
  EXPECT_EQ(r.ids.size() + r.reported_lost, 200u);
}

TEST(SlowConsumer, DropNewestKeepsTheOldestAndCountsTheRest) {
  server::Config config = small_kernel_buffers();
  config.connection.send.max_bytes = 16 * 1024;
  RunningServer server(config);
  SseSubscriber stalled(server.port(), "/sse/t?policy=drop-newest", 4096);
  ASSERT_TRUE(stalled.opened());
  TestClient publisher(server.port());
  for (int i = 0; i < 200; ++i) ASSERT_EQ(publish(publisher, "/pub/t", std::string(512, 'n')), 200);
  ASSERT_EQ(publish(publisher, "/pub/t", "last"), 200);  // once drained, new events flow again
  ASSERT_TRUE(stalled.client().read_until(
      [&](const std::string&) {
        stalled.parse_buffered();
        const Received r = tally(stalled.events());
        return r.ids.size() + r.reported_lost >= 201;
      },
      20s));
  const Received r = tally(stalled.events());
  EXPECT_EQ(r.ids.front(), 1u);
  EXPECT_TRUE(strictly_increasing(r.ids));
  EXPECT_EQ(r.ids.size() + r.reported_lost, 201u);
}

TEST(SlowConsumer, DisconnectClosesAtOnce) {
  server::Config config = small_kernel_buffers();
  config.connection.send.max_bytes = 16 * 1024;
  RunningServer server(config);
  SseSubscriber stalled(server.port(), "/sse/t?policy=disconnect", 4096);
  ASSERT_TRUE(stalled.opened());
  TestClient publisher(server.port());
  for (int i = 0; i < 200; ++i) ASSERT_EQ(publish(publisher, "/pub/t", std::string(512, 'x')), 200);
  EXPECT_TRUE(stalled.client().read_until_closed());
}

TEST(SlowConsumer, PoliciesTheServerDoesNotOfferAreRefused) {
  server::Config config;
  config.policy.allowed = 1u << static_cast<unsigned>(Policy::fifo);
  RunningServer server(config);
  EXPECT_EQ(http_request(server.port(), "GET", "/sse/t?policy=latest").status, 400);
  EXPECT_EQ(http_request(server.port(), "GET", "/sse/t?policy=bogus").status, 400);
}

}  // namespace
}  // namespace sluice::test
