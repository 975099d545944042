// GET /dashboard on the real sluiced: the embedded page, and the system
// topic "$sys" that sluiced feeds on its timer. Headless Chromium loads the
// page from sluiced and shows a figure change after the test publishes
// (tests/peers/sluiced_dashboard.mjs drives it); the screenshot it saves is
// the one docs/img/dashboard.png shows.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kDashboardPeers = SLUICE_SOURCE_DIR "/tests/peers";

// The line after "label: " in the driver's output.
std::string reported(const std::string& output, const std::string& label) {
  const std::size_t at = output.find(label + ": ");
  if (at == std::string::npos) return {};
  return output.substr(at, output.find('\n', at) - at);
}

TEST(SluicedDashboard, ServesThePageAndItsEventsAndOnlySluicedFeedsThem) {
  SluicedProcess sluiced({"threads=2", "dashboard.interval_ms=100"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();

  const HttpReply page = http_request(sluiced.port(), "GET", "/dashboard");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.head.find("text/html"), std::string::npos) << page.head;
  EXPECT_NE(page.body.find("<!doctype html>"), std::string::npos);
  const auto etag_at = page.head.find("ETag: ");
  ASSERT_NE(etag_at, std::string::npos) << page.head;
  const std::string etag = page.head.substr(etag_at + 6, page.head.find('\r', etag_at) - etag_at - 6);
  TestClient revalidate(sluiced.port());
  revalidate.send("GET /dashboard HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: " + etag + "\r\n\r\n");
  EXPECT_EQ(read_reply(revalidate).status, 304);

  SseSubscriber events(sluiced.port(), "/dashboard/events");
  ASSERT_TRUE(events.opened());
  ASSERT_TRUE(events.wait_for(1));
  EXPECT_EQ(events.events()[0].type, "snapshot");
  EXPECT_NE(events.events()[0].data.find("\"published\":0,"), std::string::npos) << events.events()[0].data;

  TestClient publisher(sluiced.port());
  for (int i = 0; i < 7; ++i) ASSERT_EQ(publish(publisher, "/pub/news", "n"), 200);
  // A later snapshot counts them (a tick may have been taken in between).
  bool counted = false;
  for (std::size_t seen = 1; !counted && events.wait_for(seen + 1, 10s); ++seen) {
    counted = events.events()[seen].data.find("\"totals\":{\"published\":7,") != std::string::npos;
  }
  EXPECT_TRUE(counted) << events.events().back().data;
  EXPECT_NE(events.events().back().data.find("{\"name\":\"news\",\"subscribers\":0"), std::string::npos)
      << events.events().back().data;

  // No client can write to the system topic, by any route, or open it at /sse.
  EXPECT_EQ(http_request(sluiced.port(), "POST", "/pub/$sys", "{\"v\":1}").status, 400);
  EXPECT_EQ(http_request(sluiced.port(), "POST", "/pub/%24sys", "{\"v\":1}").status, 400);
}

TEST(SluicedDashboard, SwitchedOffServesNothing) {
  SluicedProcess sluiced({"threads=2", "dashboard.enabled=0"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_EQ(http_request(sluiced.port(), "GET", "/dashboard").status, 404);
  EXPECT_EQ(http_request(sluiced.port(), "GET", "/dashboard/events").status, 404);
}

TEST(SluicedDashboard, ChromiumShowsTheFiguresChangeAfterAPublish) {
  ASSERT_TRUE(std::filesystem::exists(kDashboardPeers / "node_modules" / "playwright-core"))
      << "the peers' npm packages are missing: run make test (npm ci --prefix tests/peers)";
  SluicedProcess sluiced({"threads=2", "dashboard.interval_ms=250"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  SseSubscriber reader(sluiced.port(), "/sse/prices");
  ASSERT_TRUE(reader.opened());

  constexpr int kEvents = 1200;
  const std::filesystem::path screenshot = std::filesystem::current_path() / "sluiced_dashboard.png";
  std::filesystem::remove(screenshot);
  ChildProcess browser({"node", (kDashboardPeers / "sluiced_dashboard.mjs").string(), std::to_string(sluiced.port()),
                        screenshot.string(), std::to_string(kEvents)});
  ASSERT_TRUE(browser.read_until_contains("first: ", 60s)) << browser.output();
  ASSERT_TRUE(browser.read_until_contains("\n", 10s)) << browser.output();

  TestClient publisher(sluiced.port());
  // Two loops: on a loaded machine the reader's may be behind the
  // publisher's, and a publish is then refused with Retry-After: 0.
  for (int i = 0; i < kEvents; ++i) {
    ASSERT_EQ(publish_retrying_busy(publisher, "/pub/prices", std::to_string(i)), 200);
  }
  ASSERT_TRUE(reader.wait_for(kEvents));
  ASSERT_TRUE(browser.read_to_end(60s)) << browser.output();
  ASSERT_EQ(browser.wait(10s), 0) << browser.output();

  const std::string first = reported(browser.output(), "first");
  const std::string second = reported(browser.output(), "second");
  EXPECT_NE(first.find("\"state\":\"live\""), std::string::npos) << first;
  EXPECT_NE(first.find("\"published_total\":\"0\""), std::string::npos) << first;
  // The reader and the page's own stream.
  EXPECT_NE(first.find("\"conn_sse\":\"2\""), std::string::npos) << first;
  EXPECT_NE(second.find("\"published_total\":\"1,200\""), std::string::npos) << second;
  EXPECT_NE(second.find("[\"prices\",\"1\""), std::string::npos) << second;

  std::ifstream png(screenshot, std::ios::binary);
  char magic[8] = {};
  png.read(magic, sizeof magic);
  EXPECT_EQ(std::string(magic, 8), "\x89PNG\r\n\x1a\n") << screenshot;
}

}  // namespace
}  // namespace sluice::test
