#include "metrics/scrape.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "child_process.hpp"

namespace sluice::metrics {
namespace {

using namespace std::chrono_literals;

ServerGauges some_server_gauges() {
  return {.version = "0.1.0",
          .topics = 7,
          .topics_limit = 10000,
          .connections_limit = 5000,
          .pool_blocks = 1024,
          .pool_block_size = 4096,
          .pool_reserve = 16,
          .pool_free_blocks = 1000,
          .pool_min_free_blocks = 900,
          .pool_data_refusals = 5,
          .pool_control_refusals = 0,
          .log_lines_dropped = 2,
          .memory_limit = 1 << 20,
          .memory_reserve = 1 << 16};
}

std::string exposition_of(const Registry& r) {
  std::string text;
  write_exposition(r, some_server_gauges(), text);
  return text;
}

// Every family with a non-zero value somewhere, across two loops.
std::string busy_exposition() {
  Registry r(2);
  for (std::size_t i = 0; i < 2; ++i) {
    LoopMetrics& m = r.loop(i);
    m.connections_of(Transport::sse).add(3);
    m.connections_of(Transport::ws).add(2);
    m.connections_accepted.add(9);
    m.subscribers.add(11);
    m.events_published.add(100);
    m.delivered_to(Transport::sse).add(300);
    m.events_dropped[3].add(4);
    m.events_conflated.add(6);
    m.loose(LooseBound::window_steps).add(1);
    m.latest_padding_bytes.add(1000);
    m.slow_consumer_cutoffs[0].add(1);
    m.refused(Refusal::no_memory).add(2);
    m.token(TokenOutcome::verified).add(1);
    m.token(TokenOutcome::reused).add(7);
    m.writev_events.observe(3);
    m.event_age_at_flush_us.observe(120);
    m.queue_depth.observe(0);
  }
  return exposition_of(r);
}

TEST(MetricsScrape, SumsLoopsIntoOneSamplePerSeries) {
  const std::string text = busy_exposition();
  for (const char* line : {"sluice_connections{transport=\"sse\"} 6\n", "sluice_connections{transport=\"ws\"} 4\n",
                           "sluice_connections{transport=\"http\"} 0\n", "sluice_events_published_total 200\n",
                           "sluice_events_delivered_total{transport=\"sse\"} 600\n",
                           "sluice_events_dropped_total{policy=\"latest\"} 8\n",
                           "sluice_events_dropped_total{policy=\"fifo\"} 0\n",
                           "sluice_latest_streams_loosely_bound_total{why=\"window_steps\"} 2\n",
                           "sluice_latest_streams_loosely_bound_total{why=\"no_kernel_facts\"} 0\n",
                           "sluice_latest_padding_bytes_total 2000\n",
                           "sluice_slow_consumer_cutoffs_total{policy=\"fifo\"} 2\n",
                           "sluice_publish_refusals_total{reason=\"no_memory\"} 4\n",
                           "sluice_publish_refusals_total{reason=\"busy\"} 0\n", "sluice_writev_events_count 2\n",
                           "sluice_tokens_total{outcome=\"verified\"} 2\n",
                           "sluice_tokens_total{outcome=\"reused\"} 14\n",
                           "sluice_tokens_total{outcome=\"refused\"} 0\n",
                           "sluice_event_age_at_flush_seconds_bucket{le=\"0.00025\"} 2\n",
                           "sluice_event_age_at_flush_seconds_sum 0.00024\n", "sluice_pool_blocks_in_use 24\n",
                           "sluice_pool_refusals_total{lane=\"data\"} 5\n", "sluice_loops 2\n",
                           "sluice_build_info{version=\"0.1.0\"} 1\n", "sluice_connections_limit 5000\n",
                           "sluice_topics_limit 10000\n", "sluice_connection_memory_limit_bytes 1048576\n",
                           "sluice_connection_memory_reserve_bytes 65536\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "in:\n" << text;
  }
}

TEST(MetricsScrape, NoDeliveredSeriesForPlainHttp) {
  const std::string text = busy_exposition();
  EXPECT_EQ(text.find("sluice_events_delivered_total{transport=\"http\"}"), std::string::npos);
}

// Each family's HELP and TYPE appear exactly once.
TEST(MetricsScrape, EveryFamilyIsDeclaredOnce) {
  const std::string text = busy_exposition();
  std::size_t families = 0;
  for (std::size_t at = text.find("# TYPE "); at != std::string::npos; at = text.find("# TYPE ", at + 1)) {
    const std::string name = text.substr(at + 7, text.find(' ', at + 7) - at - 7);
    EXPECT_EQ(text.find("# TYPE " + name + " "), at) << name;
    EXPECT_NE(text.find("# HELP " + name + " "), std::string::npos) << name;
    ++families;
  }
  EXPECT_GE(families, 20u);
}

// Prometheus's own checker: the format parses and the names, types and
// units follow its conventions (it fails on lint problems too).
void expect_promtool_accepts(const std::string& text) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("sluice-metrics-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(file) << text;
  test::ChildProcess promtool({"/bin/sh", "-c", "exec promtool check metrics < '" + file.string() + "'"});
  ASSERT_TRUE(promtool.read_to_end(60s));
  const int code = promtool.wait(10s);
  std::filesystem::remove(file);
  EXPECT_EQ(code, 0) << promtool.output();
}

TEST(MetricsScrape, PromtoolAcceptsTheExposition) { expect_promtool_accepts(busy_exposition()); }

TEST(MetricsScrape, PromtoolAcceptsAFreshServersExposition) { expect_promtool_accepts(exposition_of(Registry(1))); }

// And it is not a checker that accepts anything.
TEST(MetricsScrape, PromtoolRefusesABrokenExposition) {
  test::ChildProcess promtool({"/bin/sh", "-c", "printf 'x_total{a=\"1} 3\\n' | promtool check metrics"});
  ASSERT_TRUE(promtool.read_to_end(60s));
  EXPECT_NE(promtool.wait(10s), 0) << promtool.output();
}

// The suggested alerts (docs/ops/sluice.rules.yml) name only metrics that
// the exposition has: a renamed family cannot leave an alert that never fires.
TEST(MetricsScrape, TheAlertRulesNameOnlyExposedMetrics) {
  const std::filesystem::path rules =
      std::filesystem::path(SLUICE_SOURCE_DIR) / "docs" / "ops" / "sluice.rules.yml";
  std::ifstream in(rules);
  ASSERT_TRUE(in) << rules;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string exposition = busy_exposition();
  std::size_t named = 0;
  for (std::size_t at = text.find("sluice_"); at != std::string::npos; at = text.find("sluice_", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) != 0 || text[at - 1] == '_')) continue;
    const std::size_t end = text.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", at);
    const std::string name = text.substr(at, end - at);
    const bool exposed = exposition.find("\n" + name + "{") != std::string::npos ||
                         exposition.find("\n" + name + " ") != std::string::npos;
    EXPECT_TRUE(exposed) << name;
    ++named;
  }
  EXPECT_GE(named, 10u);
}

}  // namespace
}  // namespace sluice::metrics
