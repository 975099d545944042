// burst: a client connects and at once the server has K events
// for it, as when a dashboard loads. Measured: time to the first and to the
// last event, and events per TCP segment received (TCP_INFO; on loopback
// one send() up to 64 KiB is one segment), the figure that was 1 when
// AsyncEventSource sent one event per packet. The headline is the time
// until the client has all K (the reader takes the clock once per read, so
// a drain of 0 means all K came in one read). Run it with --link to see the
// same over an emulated Wi-Fi link.
//
// --mode replay publishes the K events first and has the new client ask for
// the history (burst_round.hpp); --mode live subscribes first and then
// publishes them; --mode auto (the default) probes each server once and
// replays where the server can, saying in the result which mode ran and,
// when it fell back to live, what the server did instead.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "burst_round.hpp"
#include "runner.hpp"
#include "scenarios.hpp"

namespace sluice::bench {

namespace {

struct BurstOptions {
  CommonOptions common;
  BurstSetup setup;
  std::string mode = "auto";
};

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Which mode runs against this server, recorded in `result`. False when
// --mode replay was asked of a server that does not replay.
// The probe asks over SSE: a server that resumes an event stream from
// Last-Event-ID is asked the same on its WebSocket upgrade (sluiced's
// /ws/{topic} takes it); a round then says so if it does not.
bool choose_mode(const BurstOptions& o, const ServerUnderTest& sut, nlohmann::json& result) {
  if (o.mode == "live") {
    result["mode"] = "live";
    result["replay"] = false;
    return true;
  }
  const ReplaySupport support = probe_replay(o.setup, sut);
  const bool runs = support.supported || o.mode == "auto";
  result["mode"] = support.supported ? "replay" : runs ? "live" : "none";
  result["replay"] = support.supported;
  if (!support.supported) result["replay_note"] = "no history replay: " + support.why_not;
  if (!o.common.quiet) {
    const std::string what = support.supported ? "replays its history (mode replay)"
                                               : "does not replay (" + support.why_not + "); " +
                                                     (runs ? "mode live" : "not run");
    std::fprintf(stderr, "burst: %s: %s\n", sut.name.c_str(), what.c_str());
  }
  return runs;
}

nlohmann::json measure(const BurstOptions& o, const ServerUnderTest& sut) {
  nlohmann::json r;
  if (!choose_mode(o, sut, r)) {
    r["error"] = "--mode replay, but " + r["replay_note"].get<std::string>();
    return r;
  }
  const bool replay = r["mode"] == "replay";
  r["first_event_from"] = replay ? "request" : "publish";
  std::vector<double> first;
  std::vector<double> last;
  std::vector<double> drain;
  std::vector<double> per_segment;
  std::string first_error;
  for (std::size_t i = 0; i < o.setup.rounds; ++i) {
    const Round round = replay ? replay_round(o.setup, sut, i) : live_round(o.setup, sut, i);
    if (!round.complete) {
      if (first_error.empty()) first_error = round.error;
      continue;
    }
    first.push_back(round.first_ms);
    last.push_back(round.last_ms);
    drain.push_back(round.drain_ms);
    per_segment.push_back(round.events_per_segment);
  }
  r["rounds_complete"] = first.size();
  r["first_event_ms"] = median(first);
  r["last_event_ms"] = median(last);
  r["drain_ms"] = median(drain);
  // Through the link emulator the client's segments are cut by the proxy,
  // not by the server, so the figure would say nothing about the server.
  if (sut.link.empty()) r["events_per_segment"] = median(per_segment);
  // All K in one read leaves no time to divide by: the rate is left out
  // ("-" in the table) rather than printed as 0.
  if (median(drain) > 0) r["drain_events_per_s"] = static_cast<double>(o.setup.events) / (median(drain) / 1e3);
  if (!first_error.empty()) r["round_error"] = first_error;
  if (first.empty()) r["error"] = "no round delivered all events: " + first_error;
  return r;
}

const char* const kModes =
    "--mode replay publishes the K events first, then opens the stream with ?lastEventId= set to the id of\n"
    "one event published before them, so the server has all K for the client at once (its topic history).\n"
    "sluiced's defaults hold 5 rounds of K=1000 events of 64 bytes; for more, its history and send budget\n"
    "must hold K+1 events and its pool every round's, e.g. for -k 10000 --rounds 5: sluiced\n"
    "--set history.max_events=10001 --set history.max_bytes=2560256 --set send.budget_frames=10000\n"
    "--set send.budget_bytes=1280000 --set pool.block_count=116394\n"
    "(a round that falls short prints them for its K and size). --mode live subscribes first and\n"
    "publishes the K events after. --mode auto (default) replays where the server can, live elsewhere.\n"
    "--proto ws subscribes on /ws/{topic}; a replay sends Last-Event-ID with the upgrade.";

}  // namespace

void add_burst(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BurstOptions>();
  CLI::App* cmd = app.add_subcommand("burst", "a new client and K events at once; drain time, events per segment");
  cmd->footer(kModes);
  add_common_options(*cmd, o->common);
  cmd->add_option("-k,--events", o->setup.events, "events in the burst")->capture_default_str()->check(CLI::Range(1, 1000000));
  cmd->add_option("-s,--size", o->setup.size, "payload bytes")->capture_default_str();
  cmd->add_option("--mode", o->mode, "replay (history), live (publish after subscribing), auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "replay", "live"}));
  add_proto_option(*cmd, o->setup.proto);
  cmd->add_option("--rounds", o->setup.rounds, "bursts, each to a new client; medians are reported")->capture_default_str();
  cmd->add_option("--timeout", o->setup.timeout, "seconds one round may take")->capture_default_str();
  cmd->callback([o, &exit_code] {
    const ReportSpec spec{.scenario = "burst", .headline = "last_event_ms", .higher_is_better = false, .columns = {
        {"first_event_ms", "first ms", 1, 2}, {"last_event_ms", "all ms", 1, 2}, {"drain_ms", "drain ms", 1, 2},
        {"drain_events_per_s", "kevents/s", 1e3, 1}, {"events_per_segment", "ev/segment", 1, 1},
        {"rounds_complete", "rounds", 1, 0}}};
    const nlohmann::json options = {{"events", o->setup.events}, {"size", o->setup.size}, {"rounds", o->setup.rounds},
                                    {"mode", o->mode}, {"proto", proto_name(o->setup.proto)},
                                    {"link", o->common.link}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); },
                             [&o](const nlohmann::json& results) {
                               std::vector<Bar> bars;
                               for (const auto& r : results) {
                                 bars.push_back({r["server"].get<std::string>() + " (" + r.value("mode", "?") + ")",
                                                 r.value("last_event_ms", 0.0)});
                               }
                               return bar_chart("burst of " + std::to_string(o->setup.events) + " events: time until the client has all",
                                                "ms", bars);
                             });
  });
}

}  // namespace sluice::bench
