// A real Prometheus scrapes the exposition that write_exposition() makes,
// served by a small test server in place of sluiced, and the test reads
// the values back through Prometheus's query API: what the loops counted is
// what Prometheus stored, after a change too.
#include <gtest/gtest.h>

#include "metrics/exposition.hpp"
#include "metrics/scrape.hpp"
#include "prometheus.hpp"
#include "test_http_server.hpp"

namespace sluice::metrics {
namespace {

using namespace std::chrono_literals;

TEST(MetricsPrometheus, ScrapesTheExpositionAndStoresTheSums) {
  Registry registry(2);
  std::mutex updating;  // the test's own updates happen between scrapes
  registry.loop(0).events_published.add(3);
  registry.loop(1).events_published.add(4);
  registry.loop(1).events_dropped[1].add(5);
  registry.loop(0).writev_events.observe(2);
  registry.loop(1).writev_events.observe(9);

  test::TestHttpServer target([&](std::string_view path) {
    if (path != "/metrics") return test::TestHttpServer::Reply{.status = 404, .body = "not found\n"};
    const std::lock_guard lock(updating);
    test::TestHttpServer::Reply reply{.content_type = std::string(kExpositionContentType)};
    write_exposition(registry, {.version = "test", .pool_blocks = 64, .pool_free_blocks = 60}, reply.body);
    return reply;
  });
  ASSERT_NE(target.port(), 0);

  test::Prometheus prometheus(target.port(), "/metrics", 1s);
  ASSERT_TRUE(prometheus.started()) << prometheus.log();
  ASSERT_TRUE(prometheus.wait_target_up(60s)) << prometheus.last_error() << "\n" << prometheus.log();
  EXPECT_GE(target.served("/metrics"), 1u);

  EXPECT_EQ(prometheus.wait_for_value("sluice_events_published_total", 7, 30s), 7) << prometheus.last_error();
  EXPECT_EQ(prometheus.wait_for_value("sluice_events_dropped_total{policy=\"drop-oldest\"}", 5, 30s), 5)
      << prometheus.last_error();
  EXPECT_EQ(prometheus.wait_for_value("sluice_writev_events_bucket{le=\"2\"}", 1, 30s), 1) << prometheus.last_error();
  EXPECT_EQ(prometheus.wait_for_value("sluice_pool_blocks_in_use", 4, 30s), 4) << prometheus.last_error();

  // A later scrape carries the change.
  {
    const std::lock_guard lock(updating);
    registry.loop(1).events_published.add(35);
  }
  EXPECT_EQ(prometheus.wait_for_value("sluice_events_published_total", 42, 30s), 42) << prometheus.last_error();
}

}  // namespace
}  // namespace sluice::metrics
