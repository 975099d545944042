// burst against a live sluiced in each mode: the replay reaches the client
// whole, the mode run is named in the result, a server that keeps no
// history makes --mode auto fall back to live and say why, and a history
// too short for K fails the run naming the settings that would hold it; over
// WebSocket the replay is asked for with Last-Event-ID on the upgrade.
// Nothing here is timed: figures belong in docs/BENCHMARKS.md.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "child_process.hpp"

namespace sluice::bench {
namespace {

using namespace std::chrono_literals;

struct BenchRun {
  int exit_code = -1;
  nlohmann::json result;  // the one server's result
};

BenchRun run_burst(const std::string& args, const std::string& sluiced_settings = "") {
  const std::string sluiced = test::env_path("SLUICED") + " --listen 127.0.0.1:0 " + sluiced_settings;
  const std::string command = std::string(SLUICE_BENCH_PATH) + " burst " + args + " --quiet --json --server 'sluice=" +
                              sluiced + "' 2>/dev/null";
  test::ChildProcess bench({"/bin/sh", "-c", command});
  BenchRun run;
  EXPECT_TRUE(bench.read_to_end(60s));
  run.exit_code = bench.wait(10s);
  const nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << bench.output();
  if (!doc.is_discarded() && doc["results"].size() == 1) run.result = doc["results"][0];
  return run;
}

TEST(Burst, ReplaysTheHistoryWholeToANewClient) {
  const BenchRun run = run_burst("-k 300 --rounds 2");
  EXPECT_EQ(run.exit_code, 0) << run.result.dump();
  EXPECT_EQ(run.result.value("mode", ""), "replay");
  EXPECT_EQ(run.result.value("first_event_from", ""), "request");
  EXPECT_EQ(run.result.value("rounds_complete", 0), 2);
  // One event per segment is the pattern of a server that sends each event
  // on its own; sluice gathers a burst into full segments.
  EXPECT_GT(run.result.value("events_per_segment", 0.0), 1.0);
}

TEST(Burst, LiveModeWhenAsked) {
  const BenchRun run = run_burst("-k 200 --rounds 2 --mode live");
  EXPECT_EQ(run.exit_code, 0) << run.result.dump();
  EXPECT_EQ(run.result.value("mode", ""), "live");
  EXPECT_EQ(run.result.value("first_event_from", ""), "publish");
  EXPECT_EQ(run.result.value("rounds_complete", 0), 2);
}

TEST(Burst, OverWebSocketLiveWhenAsked) {
  const BenchRun run = run_burst("-k 200 --rounds 2 --proto ws --mode live");
  EXPECT_EQ(run.exit_code, 0) << run.result.dump();
  EXPECT_EQ(run.result.value("mode", ""), "live");
  EXPECT_EQ(run.result.value("rounds_complete", 0), 2);
  EXPECT_GT(run.result.value("events_per_segment", 0.0), 0.0);
}

TEST(Burst, ReplaysOverWebSocketFromLastEventId) {
  const BenchRun run = run_burst("-k 300 --rounds 2 --proto ws");
  EXPECT_EQ(run.exit_code, 0) << run.result.dump();
  EXPECT_EQ(run.result.value("mode", ""), "replay");
  EXPECT_EQ(run.result.value("first_event_from", ""), "request");
  EXPECT_EQ(run.result.value("rounds_complete", 0), 2);
  EXPECT_GT(run.result.value("events_per_segment", 0.0), 1.0);
}

TEST(Burst, AWebSocketReplayTooOldForTheHistoryFailsWithTheServersNotice) {
  const BenchRun run = run_burst("-k 300 --rounds 1 --proto ws --mode replay", "--set history.max_events=100");
  EXPECT_EQ(run.exit_code, 1);
  const std::string error = run.result.value("error", "");
  EXPECT_NE(error.find("notice"), std::string::npos) << error;
  EXPECT_NE(error.find("too-old"), std::string::npos) << error;
  EXPECT_NE(error.find("--set history.max_events=1000"), std::string::npos) << error;
}

TEST(Burst, FallsBackToLiveAndSaysWhyWhenTheServerKeepsNoHistory) {
  // 50 events: fewer than a topic keeps whatever history.max_events says, so
  // the live burst is never refused while the loop catches up.
  const BenchRun run = run_burst("-k 50 --rounds 1", "--set history.max_events=0");
  EXPECT_EQ(run.exit_code, 0) << run.result.dump();
  EXPECT_EQ(run.result.value("mode", ""), "live");
  EXPECT_FALSE(run.result.value("replay", true));
  // sluiced's notice (sluice-reset) says the id is older than what it keeps.
  EXPECT_NE(run.result.value("replay_note", "").find("too-old"), std::string::npos) << run.result.dump();
  EXPECT_EQ(run.result.value("rounds_complete", 0), 1);
}

TEST(Burst, ReplayModeRefusesAServerWithoutHistory) {
  const BenchRun run = run_burst("-k 50 --rounds 1 --mode replay", "--set history.max_events=0");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.result.value("error", "").find("no history replay"), std::string::npos) << run.result.dump();
}

TEST(Burst, AHistoryShorterThanTheBurstNamesTheSettingsThatHoldIt) {
  const BenchRun run = run_burst("-k 300 --rounds 1 --mode replay", "--set history.max_events=100");
  EXPECT_EQ(run.exit_code, 1);
  const std::string error = run.result.value("error", "");
  EXPECT_NE(error.find("refused the replay"), std::string::npos) << error;
  EXPECT_NE(error.find("--set history.max_events=1000"), std::string::npos) << error;
}

}  // namespace
}  // namespace sluice::bench
