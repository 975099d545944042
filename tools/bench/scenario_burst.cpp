// burst (seed 000): a client connects and at once the server has K events
// for it, as when a dashboard loads. The bench subscribes, then publishes
// the K events in one pipelined write, and measures how the server drains
// them: time to the first and to the last event, and events per TCP segment
// received (TCP_INFO; on loopback one send() up to 64 KiB is one segment),
// the figure that was 1 when AsyncEventSource sent one event per packet.
// Run it with --link to see the same over an emulated Wi-Fi link.
#include <algorithm>
#include <memory>
#include <vector>

#include "clock.hpp"
#include "net.hpp"
#include "publisher.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "sse_session.hpp"

namespace sluice::bench {

namespace {

struct BurstOptions {
  CommonOptions common;
  std::size_t events = 1000;
  std::size_t size = 64;
  std::size_t rounds = 5;
  double timeout = 20;  // seconds per round at most
};

struct Round {
  double first_ms = 0;   // publish write to first event
  double drain_ms = 0;   // first event to last
  double events_per_segment = 0;
  bool complete = false;
};

bool wait_streaming(ReaderContext& context, const SseSession& session, std::uint64_t deadline) {
  while (!session.streaming() && !session.done() && now_ns() < deadline) context.loop.run_once(10);
  return session.streaming();
}

Round one_round(const BurstOptions& o, const ServerUnderTest& sut, std::size_t index) {
  StreamCounters counters;
  ReaderContext context(counters);
  const std::string topic = "burst-" + std::to_string(index) + "-" + std::to_string(now_ns() % 1000000);
  SseSession session(context, {.server = sut.endpoint, .path = "/sse/" + topic});
  const std::uint64_t deadline = now_ns() + static_cast<std::uint64_t>(o.timeout * 1e9);
  if (!session.start()) return {};
  const std::uint64_t segments_before = segments_in(session.fd());
  if (!wait_streaming(context, session, deadline)) return {};
  Publisher publisher({.server = sut.direct, .topic = topic, .size = o.size, .pipeline = o.events,
                       .window = o.events, .max_events = o.events});
  const std::uint64_t published_at = now_ns();
  publisher.start(deadline);
  while (session.events() < o.events && !session.done() && now_ns() < deadline) context.loop.run_once(10);
  publisher.stop();
  Round round;
  round.complete = session.events() >= o.events;
  // A server that has the events before the publish (sol-server --mode
  // burst) may deliver the first ones with the stream head: first_ms is 0.
  const std::uint64_t first = session.first_event_ns();
  round.first_ms = static_cast<double>(first > published_at ? first - published_at : 0) / 1e6;
  round.drain_ms = static_cast<double>(session.last_event_ns() - first) / 1e6;
  // The first segment after the handshake carried the stream head.
  const std::uint64_t segments = segments_in(session.fd()) - segments_before;
  round.events_per_segment = segments > 1 ? static_cast<double>(session.events()) / static_cast<double>(segments - 1) : 0;
  return round;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

nlohmann::json measure(const BurstOptions& o, const ServerUnderTest& sut) {
  std::vector<double> first;
  std::vector<double> drain;
  std::vector<double> per_segment;
  std::size_t complete = 0;
  for (std::size_t i = 0; i < o.rounds; ++i) {
    const Round round = one_round(o, sut, i);
    if (!round.complete) continue;
    ++complete;
    first.push_back(round.first_ms);
    drain.push_back(round.drain_ms);
    per_segment.push_back(round.events_per_segment);
  }
  nlohmann::json r = {{"rounds_complete", complete}, {"first_event_ms", median(first)}, {"drain_ms", median(drain)}};
  // Through the link emulator the client's segments are cut by the proxy,
  // not by the server, so the figure would say nothing about the server.
  if (sut.link.empty()) r["events_per_segment"] = median(per_segment);
  r["drain_events_per_s"] = r["drain_ms"].get<double>() > 0 ? static_cast<double>(o.events) / (median(drain) / 1e3) : 0;
  if (complete == 0) r["error"] = "no round delivered all events";
  return r;
}

}  // namespace

void add_burst(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BurstOptions>();
  CLI::App* cmd = app.add_subcommand("burst", "seed 000: a new client and K events at once; drain time, events per segment");
  add_common_options(*cmd, o->common);
  cmd->add_option("-k,--events", o->events, "events in the burst")->capture_default_str();
  cmd->add_option("-s,--size", o->size, "payload bytes")->capture_default_str();
  cmd->add_option("--rounds", o->rounds, "bursts, each to a new client; medians are reported")->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds one round may take")->capture_default_str();
  cmd->callback([o, &exit_code] {
    const ReportSpec spec{.scenario = "burst", .headline = "drain_ms", .higher_is_better = false, .columns = {
        {"first_event_ms", "first ms", 1, 2}, {"drain_ms", "drain ms", 1, 2},
        {"drain_events_per_s", "kevents/s", 1e3, 1}, {"events_per_segment", "ev/segment", 1, 1},
        {"rounds_complete", "rounds", 1, 0}}};
    const nlohmann::json options = {{"events", o->events}, {"size", o->size}, {"rounds", o->rounds},
                                    {"link", o->common.link}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); },
                             [&o](const nlohmann::json& results) {
                               std::vector<Bar> bars;
                               for (const auto& r : results) bars.push_back({r["server"], r.value("drain_ms", 0.0)});
                               return bar_chart("burst of " + std::to_string(o->events) + " events: drain time", "ms", bars);
                             });
  });
}

}  // namespace sluice::bench
