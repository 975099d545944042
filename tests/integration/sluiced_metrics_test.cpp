// GET /metrics on the real sluiced: what its loops counted while serving a
// real subscriber and publisher is what the exposition says, promtool
// accepts the exposition, and a real Prometheus scraping sluiced stores the
// same numbers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "auth/jwt_mint.hpp"
#include "child_process.hpp"
#include "h2_test_client.hpp"
#include "prometheus.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;

// Every sample line of an exposition, by its name and labels as written.
std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// Two loops, so the counts are sums over loops; no dashboard, whose system
// topic would be one more topic in them.
SluicedProcess sluiced_with(std::vector<std::string> settings = {}) {
  settings.insert(settings.begin(), {"threads=2", "dashboard.enabled=0"});
  return SluicedProcess(settings);
}

TEST(SluicedMetrics, CountsWhatWasServedAndPassesPromtool) {
  SluicedProcess sluiced = sluiced_with();
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();

  SseSubscriber subscriber(sluiced.port(), "/sse/news");
  ASSERT_TRUE(subscriber.opened());
  constexpr int kEvents = 250;
  TestClient publisher(sluiced.port());
  for (int i = 0; i < kEvents; ++i) ASSERT_EQ(publish(publisher, "/pub/news", "e" + std::to_string(i)), 200);
  ASSERT_TRUE(subscriber.wait_for(kEvents));

  const HttpReply reply = http_request(sluiced.port(), "GET", "/metrics");
  ASSERT_EQ(reply.status, 200);
  EXPECT_NE(reply.head.find("text/plain; version=0.0.4"), std::string::npos) << reply.head;
  auto s = samples(reply.body);
  EXPECT_EQ(s["sluice_events_published_total"], kEvents);
  EXPECT_EQ(s["sluice_events_delivered_total{transport=\"sse\"}"], kEvents);
  EXPECT_EQ(s["sluice_connections{transport=\"sse\"}"], 1);
  EXPECT_EQ(s["sluice_subscribers"], 1);
  EXPECT_EQ(s["sluice_topics"], 1);
  EXPECT_EQ(s["sluice_loops"], 2);
  EXPECT_GE(s["sluice_connections_accepted_total"], 3);
  EXPECT_EQ(s["sluice_pool_blocks"], 16384);
  // The events went out in writes of data frames: one frame per event, or
  // one per run of events a subscriber was owed at once, so no more frames
  // than events; the flushes that had data waiting counted their queue's
  // depth.
  EXPECT_GE(s["sluice_writev_events_sum"], 1);
  EXPECT_LE(s["sluice_writev_events_sum"], kEvents);
  EXPECT_GE(s["sluice_writev_events_count"], 1);
  EXPECT_GE(s["sluice_queue_depth_frames_count"], 1);
  // Each flush that wrote events counted how long the oldest of them had
  // waited since it was published: at most one per writev, each a wait
  // this test could not have outlasted.
  const double aged = s["sluice_event_age_at_flush_seconds_count"];
  EXPECT_GE(aged, 1);
  EXPECT_LE(aged, s["sluice_writev_events_count"]);
  EXPECT_GT(s["sluice_event_age_at_flush_seconds_sum"], 0);
  EXPECT_LT(s["sluice_event_age_at_flush_seconds_sum"] / aged, 10);
  EXPECT_EQ(s["sluice_event_age_at_flush_seconds_bucket{le=\"+Inf\"}"], aged);

  const std::string path = testing::TempDir() + std::to_string(::getpid()) + "_sluiced_metrics.prom";
  std::ofstream(path) << reply.body;
  ChildProcess promtool({"sh", "-c", "promtool check metrics < " + path});
  EXPECT_EQ(promtool.wait(30s), 0) << (promtool.read_to_end(5s), promtool.output());
  std::remove(path.c_str());
}

// An HTTP/2 connection's flushes count too: its streams' queues are its
// data lane. The only subscriber here is on HTTP/2, and the publishes'
// and the scrape's replies are no data frames, so every count is its.
TEST(SluicedMetrics, Http2FlushesCountInTheFlushHistograms) {
  // One loop: the scrape is read after the flush that carried the events
  // has counted itself. With two, the other loop could answer it between
  // that flush's write and its count.
  SluicedProcess sluiced = sluiced_with({"pool.prefault=0", "threads=1"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  auto h2 = std::make_unique<transport::test::H2TestClient>(static_cast<std::uint16_t>(sluiced.port()));
  transport::test::H2TestClient& client = *h2;
  ASSERT_TRUE(client.ok());
  const auto stream = client.request("GET", "/sse/h2news");
  ASSERT_TRUE(client.pump([&] { return client.stream(stream).body.find("retry: ") != std::string::npos; }));
  constexpr int kEvents = 20;
  {
    TestClient publisher(sluiced.port());
    for (int i = 0; i < kEvents; ++i) ASSERT_EQ(publish(publisher, "/pub/h2news", "e" + std::to_string(i)), 200);
  }
  const std::string last = "data: e" + std::to_string(kEvents - 1) + "\n\n";
  ASSERT_TRUE(client.pump([&] { return client.stream(stream).body.find(last) != std::string::npos; }));

  const HttpReply reply = http_request(sluiced.port(), "GET", "/metrics");
  ASSERT_EQ(reply.status, 200);
  auto s = samples(reply.body);
  EXPECT_EQ(s["sluice_events_delivered_total{transport=\"sse\"}"], kEvents);
  EXPECT_GE(s["sluice_queue_depth_frames_count"], 1);
  EXPECT_GE(s["sluice_writev_events_sum"], 1);
  EXPECT_LE(s["sluice_writev_events_sum"], kEvents);
  EXPECT_GE(s["sluice_event_age_at_flush_seconds_count"], 1);
  EXPECT_GT(s["sluice_event_age_at_flush_seconds_sum"], 0);
  h2.reset();  // gone before the stop, which would otherwise wait for it to linger out
  EXPECT_EQ(sluiced.stop(), 0);
}

// With auth.mode=jwt, what the token authorizer made of each request's
// token: three publishes on one kept-alive connection are one token
// verified and two reused, a forged token is refused, and the scrape's own
// token (on a new connection) is verified too.
TEST(SluicedMetrics, CountsTokensVerifiedReusedAndRefused) {
  const std::string secret = "metrics-token-secret-0123456789abcdef";
  SluicedProcess sluiced = sluiced_with({"auth.mode=jwt", "auth.jwt_secret=" + secret});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  auth::SigningKey key;
  ASSERT_FALSE(auth::signing_key_from_secret(secret, key));
  auth::TokenClaims claims;
  claims.subject = "ops";
  claims.publish = {"news"};
  claims.subscribe = {"$metrics"};
  claims.issued_at = std::chrono::system_clock::now();
  std::string token;
  ASSERT_FALSE(auth::mint_token(claims, key, token));
  const auto post = [&](TestClient& client, const std::string& bearer) {
    client.send("POST /pub/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + bearer +
                "\r\nContent-Length: 1\r\n\r\nx");
    return read_reply(client).status;
  };
  {
    TestClient kept(sluiced.port());
    for (int i = 0; i < 3; ++i) ASSERT_EQ(post(kept, token), 200) << i;
  }
  std::string forged = token;
  char& flipped = forged[forged.size() - 5];
  flipped = flipped == 'A' ? 'B' : 'A';
  {
    TestClient other(sluiced.port());
    ASSERT_EQ(post(other, forged), 401);
  }

  auto scraper = std::make_unique<TestClient>(sluiced.port());
  scraper->send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n\r\n");
  const HttpReply reply = read_reply(*scraper);
  scraper.reset();  // gone before the stop, which would otherwise wait for it to linger out
  ASSERT_EQ(reply.status, 200) << reply.body;
  auto s = samples(reply.body);
  EXPECT_EQ(s["sluice_tokens_total{outcome=\"verified\"}"], 2);
  EXPECT_EQ(s["sluice_tokens_total{outcome=\"reused\"}"], 2);
  EXPECT_EQ(s["sluice_tokens_total{outcome=\"refused\"}"], 1);
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedMetrics, CountsRefusalsByReasonAndStreamsEnding) {
  SluicedProcess sluiced = sluiced_with({"topics.max=1"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  {
    SseSubscriber subscriber(sluiced.port(), "/sse/a");
    ASSERT_TRUE(subscriber.opened());
    EXPECT_EQ(http_request(sluiced.port(), "POST", "/pub/b", "x").status, 503);
  }
  // The stream's end is seen by its loop after the client went: wait for it.
  std::map<std::string, double> s;
  for (int i = 0; i < 200; ++i) {
    s = samples(http_request(sluiced.port(), "GET", "/metrics").body);
    if (s["sluice_connections{transport=\"sse\"}"] == 0) break;
    ::usleep(20000);
  }
  EXPECT_EQ(s["sluice_connections{transport=\"sse\"}"], 0);
  EXPECT_EQ(s["sluice_subscribers"], 0);
  EXPECT_EQ(s["sluice_publish_refusals_total{reason=\"too_many_topics\"}"], 1);
  EXPECT_EQ(s["sluice_events_published_total"], 0);
}

TEST(SluicedMetrics, PathAndSwitchAreConfigurable) {
  SluicedProcess sluiced = sluiced_with({"metrics.path=/internal/metrics"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_EQ(http_request(sluiced.port(), "GET", "/metrics").status, 404);
  EXPECT_EQ(http_request(sluiced.port(), "GET", "/internal/metrics").status, 200);
  EXPECT_EQ(http_request(sluiced.port(), "POST", "/internal/metrics", "x").status, 405);

  SluicedProcess off = sluiced_with({"metrics.enabled=0"});
  ASSERT_NE(off.port(), 0) << off.output();
  EXPECT_EQ(http_request(off.port(), "GET", "/metrics").status, 404);
}

TEST(SluicedMetrics, RealPrometheusScrapesSluiced) {
  SluicedProcess sluiced = sluiced_with();
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  constexpr int kEvents = 137;
  TestClient publisher(sluiced.port());
  for (int i = 0; i < kEvents; ++i) ASSERT_EQ(publish(publisher, "/pub/prices", "p" + std::to_string(i)), 200);

  Prometheus prometheus(sluiced.port(), "/metrics", 1s);
  ASSERT_TRUE(prometheus.started()) << prometheus.log();
  ASSERT_TRUE(prometheus.wait_target_up(60s)) << prometheus.last_error() << "\n" << prometheus.log();
  EXPECT_EQ(prometheus.wait_for_value("sluice_events_published_total", kEvents, 30s), kEvents)
      << prometheus.last_error();
  EXPECT_EQ(prometheus.wait_for_value("sluice_topics", 1, 30s), 1) << prometheus.last_error();

  // A later scrape carries what was published since.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(publish(publisher, "/pub/prices", "q"), 200);
  EXPECT_EQ(prometheus.wait_for_value("sluice_events_published_total", kEvents + 5, 30s), kEvents + 5)
      << prometheus.last_error();
}

}  // namespace
}  // namespace sluice::test
