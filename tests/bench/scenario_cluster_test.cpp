// The cluster scenario, run for about a second through the sluice-bench
// binary: it starts a real redis-server and three real sluiced nodes (and
// one node alone), and every subscriber on every node reads every event
// the publishing node took, in order. Nothing here is timed: the figures
// belong in docs/BENCHMARKS.md.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "child_process.hpp"

namespace sluice::bench {
namespace {

using namespace std::chrono_literals;

constexpr int kSubscribers = 12;  // four on each of three nodes, SSE and WebSocket in turn

nlohmann::json run_cluster() {
  const char* redis = std::getenv("REDIS_SERVER");
  const std::string command = std::string(SLUICE_BENCH_PATH) + " cluster --node '" + test::env_path("SLUICED") +
                              " --listen 127.0.0.1:0 --set threads=2'" +
                              (redis != nullptr ? std::string(" --redis-server ") + redis : std::string()) +
                              " -N 3 -n " + std::to_string(kSubscribers) +
                              " -p 2 -r 1000 -d 0.5 --warmup 0.2 --quiet --json 2>/dev/null";
  test::ChildProcess bench({"/bin/sh", "-c", command});
  EXPECT_TRUE(bench.read_to_end(60s));
  EXPECT_EQ(bench.wait(10s), 0) << bench.output();
  const nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << bench.output();
  return doc.is_discarded() ? nlohmann::json::object() : doc;
}

// One configuration's result: every subscriber read every event the
// publishing node took, none twice, none out of order, on each node.
void expect_every_event_everywhere(const nlohmann::json& r, std::size_t nodes) {
  SCOPED_TRACE(r.value("server", "?"));
  EXPECT_FALSE(r.contains("error")) << r.dump();
  const auto published = r.value("published", std::uint64_t{0});
  EXPECT_GT(published, 0u);
  EXPECT_EQ(r.value("publish_refused", -1), 0);
  EXPECT_EQ(r.value("delivered", std::uint64_t{0}), published * kSubscribers);
  EXPECT_EQ(r.value("gaps", -1), 0);
  EXPECT_EQ(r.value("order_errors", -1), 0);
  EXPECT_EQ(r.value("streams_failed", -1), 0);
  EXPECT_EQ(r.value("streams_closed", -1), 0);
  EXPECT_GT(r.value("latency_samples", 0), 0);
  ASSERT_TRUE(r.contains("nodes"));
  ASSERT_EQ(r["nodes"].size(), nodes);
  for (const auto& node : r["nodes"]) {
    EXPECT_EQ(node.value("owed", std::uint64_t{0}), published * (kSubscribers / nodes)) << node.dump();
    EXPECT_EQ(node.value("read", std::uint64_t{0}), node.value("owed", std::uint64_t{1})) << node.dump();
    EXPECT_GE(node.value("cpu_cores", -1.0), 0) << node.dump();
  }
}

TEST(Scenarios, ClusterDeliversEveryEventInOrderOnEveryNode) {
  const nlohmann::json doc = run_cluster();
  ASSERT_TRUE(doc.contains("results"));
  ASSERT_EQ(doc["results"].size(), 2u);
  const nlohmann::json& alone = doc["results"][0];
  const nlohmann::json& cluster = doc["results"][1];
  EXPECT_EQ(alone.value("server", ""), "alone");
  EXPECT_FALSE(alone.value("broker", true));
  expect_every_event_everywhere(alone, 1);
  EXPECT_EQ(cluster.value("server", ""), "3 nodes");
  EXPECT_TRUE(cluster.value("broker", false));
  expect_every_event_everywhere(cluster, 3);
  // Redis was the bench's own, so its CPU could be read.
  EXPECT_GE(cluster.value("redis_cpu_cores", -1.0), 0);
}

}  // namespace
}  // namespace sluice::bench
