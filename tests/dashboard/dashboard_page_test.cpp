// Chromium loads the embedded dashboard page from a small test server that
// plays sluiced's part: it serves the page at /dashboard and the system
// topic's stream at /dashboard/events, fed with snapshots that the real
// SystemTopic makes from a real metrics Registry. The page must show the
// figures of the first snapshot, then change to those of the second.
// tests/peers/dashboard_page.mjs drives the browser and reports what the
// page shows; this test judges it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "dashboard/asset.hpp"
#include "dashboard/system_topic.hpp"
#include "test_http_server.hpp"

namespace sluice::dashboard {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const std::filesystem::path kPeers = std::filesystem::path(SLUICE_SOURCE_DIR) / "tests" / "peers";

test::TestHttpServer::Reply serve_page(std::string_view path) {
  if (path != "/dashboard") return {.status = 404, .body = "not found\n"};
  const Asset& page = dashboard_page();
  return {.content_type = std::string(page.content_type), .body = std::string(page.bytes)};
}

// The JSON after "label: " in the driver's output.
json reported(const std::string& output, const std::string& label) {
  const std::size_t at = output.find(label + ": ");
  if (at == std::string::npos) return nullptr;
  const std::size_t start = at + label.size() + 2;
  return json::parse(output.substr(start, output.find('\n', start) - start), nullptr, false);
}

TEST(DashboardPage, ChromiumShowsEachSnapshotOfTheSystemTopic) {
  ASSERT_TRUE(std::filesystem::exists(kPeers / "node_modules" / "playwright-core"))
      << "the peers' npm packages are missing: run make test (npm ci --prefix tests/peers)";
  metrics::Registry registry(2);
  metrics::ServerGauges gauges{.version = "0.1.0",
                               .topics = 3,
                               .pool_blocks = 1000,
                               .pool_block_size = 4096,
                               .pool_reserve = 50,
                               .pool_free_blocks = 750,
                               .pool_min_free_blocks = 700};
  std::vector<TopicSample> topics{{"news", 4, 100}, {"prices", 2, 1000}, {"<b>not markup</b>", 1, 7}};
  SystemTopic sys;
  const auto start = std::chrono::steady_clock::now();
  const auto wall = std::chrono::system_clock::now();

  test::TestHttpServer server(serve_page, "/dashboard/events");
  const std::filesystem::path screenshot = std::filesystem::current_path() / "dashboard.png";
  std::filesystem::remove(screenshot);
  test::ChildProcess browser({"node", (kPeers / "dashboard_page.mjs").string(), std::to_string(server.port()),
                              screenshot.string()});
  ASSERT_TRUE(server.wait_stream_clients(1, 60s)) << (browser.read_to_end(1s), browser.output());

  registry.loop(0).connections_of(metrics::Transport::sse).add(3);
  registry.loop(1).connections_of(metrics::Transport::ws).add(2);
  registry.loop(0).events_published.add(1000);
  ASSERT_EQ(server.push(kSnapshotEvent, sys.snapshot(registry, gauges, topics, {start, wall, 3700s})), 1u);
  ASSERT_TRUE(browser.read_until_contains("first: ", 60s)) << browser.output();
  ASSERT_TRUE(browser.read_until_contains("\n", 10s));

  registry.loop(1).events_published.add(500);
  registry.loop(0).delivered_to(metrics::Transport::sse).add(2000);
  registry.loop(1).events_dropped[3].add(7);
  registry.loop(1).connections_of(metrics::Transport::http).add(1);
  gauges.pool_free_blocks = 500;
  topics = {{"news", 4, 110}, {"prices", 2, 1300}, {"<b>not markup</b>", 1, 7}};
  ASSERT_EQ(server.push(kSnapshotEvent, sys.snapshot(registry, gauges, topics, {start + 1s, wall + 1s, 3701s})), 1u);
  ASSERT_TRUE(browser.read_to_end(60s)) << browser.output();
  ASSERT_EQ(browser.wait(10s), 0) << browser.output();

  const json first = reported(browser.output(), "first");
  const json second = reported(browser.output(), "second");
  ASSERT_TRUE(first.is_object() && second.is_object()) << browser.output();
  EXPECT_EQ(first["state"], "live");
  EXPECT_EQ(first["figures"]["connections"], "5");
  EXPECT_EQ(first["figures"]["published_total"], "1,000");
  EXPECT_EQ(first["figures"]["published_rate"], "0");
  EXPECT_EQ(first["figures"]["pool_percent"], "25 %");
  EXPECT_EQ(first["figures"]["version"], "v0.1.0 \u00b7 2 loops");
  EXPECT_EQ(first["figures"]["uptime"], "up 1h 1m");

  EXPECT_EQ(second["figures"]["connections"], "6");
  EXPECT_EQ(second["figures"]["conn_http"], "1");
  EXPECT_EQ(second["figures"]["published_total"], "1,500");
  EXPECT_EQ(second["figures"]["published_rate"], "500");
  EXPECT_EQ(second["figures"]["delivered_rate"], "2,000");
  EXPECT_EQ(second["figures"]["dropped_rate"], "7");
  EXPECT_EQ(second["figures"]["pool_percent"], "50 %");
  EXPECT_EQ(second["figures"]["pool_in_use"], "500");
  // The busiest topic first; a name with markup in it shows as text.
  ASSERT_EQ(second["topics"].size(), 3u) << second;
  EXPECT_EQ(second["topics"][0], json({"prices", "2", "300"}));
  EXPECT_EQ(second["topics"][2][0], "<b>not markup</b>");
  EXPECT_EQ(second["markup"], 0);
  // Two points make a line in every chart.
  for (const auto& [chart, drawn] : second["charts"].items()) EXPECT_TRUE(drawn.get<bool>()) << chart;

  std::ifstream png(screenshot, std::ios::binary);
  char magic[8] = {};
  png.read(magic, sizeof magic);
  EXPECT_EQ(std::string(magic, 8), "\x89PNG\r\n\x1a\n") << screenshot;
  EXPECT_GT(std::filesystem::file_size(screenshot), 10000u);
}

}  // namespace
}  // namespace sluice::dashboard
