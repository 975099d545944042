#include "dashboard/system_topic.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloc_counter.hpp"

namespace sluice::dashboard {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const metrics::ServerGauges kGauges{.version = "0.1.0",
                                    .topics = 3,
                                    .pool_blocks = 1000,
                                    .pool_block_size = 4096,
                                    .pool_reserve = 50,
                                    .pool_free_blocks = 750,
                                    .pool_min_free_blocks = 700};

struct Clock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  SnapshotTime at(std::chrono::milliseconds offset) const {
    return {start + offset, std::chrono::system_clock::time_point(1'700'000'000'000ms + offset), 60s};
  }
};

TEST(DashboardSystemTopic, FirstSnapshotHasTotalsAndNoRates) {
  metrics::Registry registry(2);
  registry.loop(0).events_published.add(10);
  registry.loop(1).events_published.add(5);
  registry.loop(0).connections_of(metrics::Transport::sse).add(3);
  registry.loop(1).connections_of(metrics::Transport::ws).add(2);
  registry.loop(1).subscribers.add(4);
  SystemTopic sys;
  const json j = json::parse(sys.snapshot(registry, kGauges, {}, Clock().at(0ms)));
  EXPECT_EQ(j["v"], 1);
  EXPECT_EQ(j["ts"], 1'700'000'000'000);
  EXPECT_EQ(j["uptime_s"], 60);
  EXPECT_EQ(j["version"], "0.1.0");
  EXPECT_EQ(j["loops"], 2);
  EXPECT_EQ(j["connections"], json({{"sse", 3}, {"ws", 2}, {"http", 0}}));
  EXPECT_EQ(j["subscribers"], 4);
  EXPECT_EQ(j["topics"], 3);
  EXPECT_EQ(j["totals"]["published"], 15);
  EXPECT_EQ(j["rates"]["published"], 0.0);
  EXPECT_TRUE(j["age_ms"]["p99"].is_null());
  EXPECT_EQ(j["pool"], json({{"blocks", 1000}, {"in_use", 250}, {"reserve", 50}, {"block_size", 4096}, {"min_free", 700}}));
}

TEST(DashboardSystemTopic, RatesAreDeltasOverTheTimeBetweenSnapshots) {
  metrics::Registry registry(1);
  metrics::LoopMetrics& m = registry.loop(0);
  SystemTopic sys;
  Clock clock;
  (void)sys.snapshot(registry, kGauges, {}, clock.at(0ms));
  m.events_published.add(300);
  m.delivered_to(metrics::Transport::sse).add(1000);
  m.delivered_to(metrics::Transport::ws).add(200);
  m.events_dropped[1].add(6);
  m.refused(metrics::Refusal::busy).add(3);
  m.slow_consumer_cutoffs[0].add(2);
  const json j = json::parse(sys.snapshot(registry, kGauges, {}, clock.at(2000ms)));
  EXPECT_EQ(j["rates"]["published"], 150.0);
  EXPECT_EQ(j["rates"]["delivered"], 600.0);
  EXPECT_EQ(j["rates"]["dropped"], 3.0);
  EXPECT_EQ(j["rates"]["refused"], 1.5);
  EXPECT_EQ(j["rates"]["cutoffs"], 1.0);
  EXPECT_EQ(j["totals"]["delivered"], 1200);
}

TEST(DashboardSystemTopic, AgeQuantilesComeFromTheWritesSinceTheLastSnapshot) {
  metrics::Registry registry(1);
  metrics::LoopMetrics& m = registry.loop(0);
  SystemTopic sys;
  Clock clock;
  for (int i = 0; i < 1000; ++i) m.event_age_at_flush_us.observe(5'000'000);  // long ago: not in the next window
  (void)sys.snapshot(registry, kGauges, {}, clock.at(0ms));
  for (int i = 0; i < 98; ++i) m.event_age_at_flush_us.observe(80);   // <= 100 us
  for (int i = 0; i < 2; ++i) m.event_age_at_flush_us.observe(2000);  // <= 2.5 ms
  const json j = json::parse(sys.snapshot(registry, kGauges, {}, clock.at(1000ms)));
  EXPECT_EQ(j["age_ms"]["p50"], 0.1);
  EXPECT_EQ(j["age_ms"]["p99"], 2.5);
}

TEST(DashboardSystemTopic, TopTopicsAreTheBusiestAndBounded) {
  metrics::Registry registry(1);
  SystemTopic sys(2);
  Clock clock;
  std::vector<TopicSample> topics{{"quiet", 9, 100}, {"busy", 1, 100}, {"medium", 1, 100}};
  (void)sys.snapshot(registry, kGauges, topics, clock.at(0ms));
  topics = {{"quiet", 9, 100}, {"busy", 1, 400}, {"medium", 1, 150}, {"new", 1, 20}};
  const json j = json::parse(sys.snapshot(registry, kGauges, topics, clock.at(1000ms)));
  ASSERT_EQ(j["top_topics"].size(), 2u);
  EXPECT_EQ(j["top_topics"][0], json({{"name", "busy"}, {"subscribers", 1}, {"rate", 300.0}}));
  EXPECT_EQ(j["top_topics"][1]["name"], "medium");
}

// Once a second on a serving server: with a steady set of topics (names
// longer than a string keeps inline), a snapshot allocates nothing.
TEST(DashboardSystemTopic, ASteadySetOfTopicsIsSnapshottedWithoutAllocating) {
  metrics::Registry registry(2);
  SystemTopic sys(5);
  Clock clock;
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) names.push_back("sensors.building-" + std::to_string(i % 7) + ".floor-" + std::to_string(i));
  std::vector<TopicSample> topics;
  for (const std::string& name : names) topics.push_back({name, 2, 0});
  const auto tick = [&](int n) {
    for (std::size_t i = 0; i < topics.size(); ++i) topics[i].published += i;  // topic i: i a second
    registry.loop(0).events_published.add(50);
    registry.loop(1).event_age_at_flush_us.observe(300);
    return sys.snapshot(registry, kGauges, topics, clock.at(std::chrono::milliseconds(1000 * n)));
  };
  for (int n = 0; n < 3; ++n) (void)tick(n);
  const std::uint64_t before = test::allocations();
  std::size_t written = 0;
  for (int n = 3; n < 13; ++n) written += tick(n).size();
  EXPECT_EQ(test::allocations() - before, 0u);
  EXPECT_GT(written, 0u);
  // And what it wrote is still the snapshot: the busiest five, in order.
  const json j = json::parse(tick(13));
  ASSERT_EQ(j["top_topics"].size(), 5u);
  EXPECT_EQ(j["top_topics"][0]["name"], names[49]);
  EXPECT_EQ(j["top_topics"][0]["rate"], 49.0);
  EXPECT_EQ(j["top_topics"][4]["name"], names[45]);
}

}  // namespace
}  // namespace sluice::dashboard
