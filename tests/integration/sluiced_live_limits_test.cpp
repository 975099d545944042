// The shared limits a reload of a running sluiced (SIGHUP) changes in
// place: the connection limits, the server's memory cap, the token
// authorizer's rates, and the latest window of new subscriptions. Each
// test starts one sluiced with a config file, rewrites the file and
// signals it, and checks what the new value binds and what it leaves
// alone: a lowered limit refuses new work and never drops what is open.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "sluiced_process.hpp"
#include "reloaded_sluiced.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

std::unique_ptr<SseSubscriber> open_stream(std::uint16_t port, std::string_view target) {
  auto stream = std::make_unique<SseSubscriber>(port, target);
  EXPECT_TRUE(stream->opened());
  return stream;
}

TEST(SluicedLiveLimits, LoweredConnectionLimitsRefuseNewConnectionsAndKeepTheOpenOnes) {
  const std::string start = "max_connections = 64\n[limits]\nper_ip_connections = 64\n";
  ReloadedSluiced sluiced("live_connections", start);
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  std::vector<std::unique_ptr<SseSubscriber>> open;
  for (int i = 0; i < 3; ++i) open.push_back(open_stream(sluiced.port(), "/sse/held"));

  ASSERT_TRUE(sluiced.reload("max_connections = 64\n[limits]\nper_ip_connections = 2\n", "limits.per_ip_connections"))
      << sluiced.output();
  HttpReply refused = http_request(sluiced.port(), "GET", "/healthz");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.body, "too many connections from this address (limits.per_ip_connections)");

  ASSERT_TRUE(sluiced.reload("max_connections = 2\n[limits]\nper_ip_connections = 64\n",
                             "limits.per_ip_connections max_connections"))
      << sluiced.output();
  refused = http_request(sluiced.port(), "GET", "/healthz");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.body, "too many connections (max_connections)");

  // Raised again: new connections are served, and the three opened before
  // either limit was lowered were never dropped.
  ASSERT_TRUE(sluiced.reload(start, "max_connections")) << sluiced.output();
  ASSERT_EQ(http_request(sluiced.port(), "POST", "/pub/held", "still here").status, 200);
  for (const auto& stream : open) {
    ASSERT_TRUE(stream->wait_for(1, 10s));
    EXPECT_EQ(stream->events().front().data, "still here");
  }
}

// Two connections hold partial request bodies (their input buffers,
// charged to the server's cap) while the cap is lowered to about what they
// hold: a third request is refused 503 naming the key, the two are not
// touched, and once they close and give their memory back the same
// request fits.
TEST(SluicedLiveLimits, ALoweredServerMemoryCapRefusesGrowthAndLeavesWhatIsHeld) {
  const std::string limits =
      "[http]\nmax_body = 524288\n[ws]\nmax_message = 65536\n[limits]\nconnection_bytes = 1048576\n";
  ReloadedSluiced sluiced("live_memory", limits + "server_bytes = 8388608\n");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  std::vector<std::unique_ptr<TestClient>> holders;
  for (int i = 0; i < 2; ++i) {
    holders.push_back(std::make_unique<TestClient>(sluiced.port()));
    holders.back()->send("POST /pub/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500000\r\n\r\n" +
                         std::string(400000, 'h'));
  }
  ASSERT_TRUE(wait_until([&] { return sluiced.connection_memory() >= 800000; })) << sluiced.connection_memory();

  ASSERT_TRUE(sluiced.reload(limits + "server_bytes = 1048576\n", "limits.server_bytes")) << sluiced.output();
  const std::string body(300000, 'b');
  const HttpReply over = http_request(sluiced.port(), "POST", "/pub/big", body);
  EXPECT_EQ(over.status, 503);
  EXPECT_EQ(over.body, "503 Service Unavailable: server memory for requests is full (limits.server_bytes)\n");
  EXPECT_GE(sluiced.connection_memory(), 800000u) << "what was held before the reload is not taken back";
  for (const auto& holder : holders) EXPECT_FALSE(holder->eof());

  holders.clear();
  ASSERT_TRUE(wait_until([&] { return sluiced.connection_memory() == 0; }));
  EXPECT_EQ(http_request(sluiced.port(), "POST", "/pub/big", body).status, 200);
}

TEST(SluicedLiveLimits, LoweredRatesBindTheNextRequestOfTheTokenAuthorizer) {
  const std::string auth =
      "[auth]\nmode = \"jwt\"\njwt_secret = \"a-secret-of-at-least-thirty-two-bytes!!\"\n"
      "anonymous_publish = \"*\"\n[auth.rate]\n";
  ReloadedSluiced sluiced("live_rates", auth + "publish_per_ip = 10000\n");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  TestClient publisher(sluiced.port());
  for (int i = 0; i < 5; ++i) ASSERT_EQ(publish(publisher, "/pub/rated", "x"), 200);

  ASSERT_TRUE(sluiced.reload(auth + "publish_per_ip = 1\npublish_per_ip_burst = 1\n",
                             "auth.rate.publish_per_ip auth.rate.publish_per_ip_burst"))
      << sluiced.output();
  EXPECT_EQ(publish(publisher, "/pub/rated", "x"), 200);
  publisher.send("POST /pub/rated HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\nx");
  const HttpReply limited = read_reply(publisher);
  EXPECT_EQ(limited.status, 429);
  EXPECT_NE(limited.head.find("Retry-After: 1\r\n"), std::string::npos) << limited.head;
  EXPECT_NE(limited.body.find("auth.rate.publish_per_ip"), std::string::npos) << limited.body;
}

// A `latest` reader with a 4 KiB receive buffer that stops reading while
// 200 frames are published: opened before the window was turned on, the
// kernel holds what it takes for it and it reads the oldest first; opened
// after, it reads at most the window and a few frames the kernel took
// unseen, then the newest.
TEST(SluicedLiveLimits, TheLatestWindowBindsSubscriptionsOpenedAfterTheReload) {
  const std::string policy = "[tcp]\nnotsent_lowat = 65536\n[policy]\ndefault = \"latest\"\n";
  ReloadedSluiced sluiced("live_window", policy + "latest_window_frames = 0\n");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  SseSubscriber before(sluiced.port(), "/sse/feed", 4096);
  ASSERT_TRUE(before.opened());
  ASSERT_TRUE(sluiced.reload(policy + "latest_window_frames = 1\n", "policy.latest_window_frames"))
      << sluiced.output();
  SseSubscriber after(sluiced.port(), "/sse/feed", 4096);
  ASSERT_TRUE(after.opened());

  constexpr int kPublished = 200;
  TestClient publisher(sluiced.port());
  for (int n = 1; n <= kPublished; ++n) {
    char body[1024];
    std::snprintf(body, sizeof body, "%06d%0994d", n, 0);
    ASSERT_EQ(publish(publisher, "/pub/feed", body), 200);
  }
  std::vector<int> numbers;
  after.client().read_until([&](const std::string&) {
    after.parse_buffered();
    numbers.clear();
    for (const auto& e : after.events()) {
      if (e.type != "sluice-dropped") numbers.push_back(std::atoi(e.data.substr(0, 6).c_str()));
    }
    return !numbers.empty() && numbers.back() == kPublished;
  });
  ASSERT_FALSE(numbers.empty());
  EXPECT_EQ(numbers.back(), kPublished);
  EXPECT_LE(numbers.size(), 5u) << "a window of 1 frame, a few more the kernel takes unseen, then the newest";
  ASSERT_TRUE(before.wait_for(1));
  EXPECT_EQ(std::atoi(before.events().front().data.substr(0, 6).c_str()), 1) << "no window: the oldest first";
}

}  // namespace
}  // namespace sluice::test
