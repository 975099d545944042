// concurrent-send: T publishers, each on its own thread and its
// own connection (--publish post or ws), each sending M messages of S bytes
// with its own publisher index and sequence, all to one topic that one
// WebSocket subscriber reads. A server that lets concurrent sends interleave
// on one connection corrupts frames; one that reorders breaks a sender's
// order. The subscriber checks every frame (WsIntegrityReader) and the
// scenario reports delivered, intact, lost, reordered, corrupted, msgs/s and
// the time to drain (first publish to last frame read). Any corrupt frame
// fails the scenario (exit 1). POST publishers send one request at a time
// and resend one the server refuses (503 while a loop catches up), as a
// real sender must, so every message is due; "refused" counts the resends.
#include <algorithm>
#include <memory>
#include <vector>

#include "clock.hpp"
#include "publisher.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "ws_integrity_reader.hpp"

namespace sluice::bench {

namespace {

struct ConcurrentOptions {
  CommonOptions common;
  std::uint32_t threads = 100;     // publishers, each with its own connection
  std::uint64_t messages = 100;    // per publisher
  std::size_t size = 64;
  double timeout = 30;             // seconds for everything to arrive
  PublishMode publish = PublishMode::post;
};

struct Sent {
  std::uint64_t accepted = 0;
  std::uint64_t refused = 0;
  std::string error;
};

std::vector<std::unique_ptr<Publisher>> start_publishers(const ConcurrentOptions& o, const io::Endpoint& server,
                                                         const std::string& topic, std::uint64_t deadline) {
  std::vector<std::unique_ptr<Publisher>> publishers;
  for (std::uint32_t i = 0; i < o.threads; ++i) {
    publishers.push_back(std::make_unique<Publisher>(PublisherOptions{
        .server = server, .topic = topic, .mode = o.publish, .index = i, .size = o.size, .pipeline = 16,
        .retry_refused = true, .max_events = o.messages}));
  }
  for (auto& p : publishers) p->start(deadline);
  return publishers;
}

// Stops (joins) every publisher and adds up what the server took.
Sent stop_publishers(std::vector<std::unique_ptr<Publisher>>& publishers) {
  Sent sent;
  for (auto& p : publishers) {
    p->stop();
    sent.accepted += p->counters().accepted.load();
    sent.refused += p->counters().refused.load();
    if (sent.error.empty() && !p->error().empty()) sent.error = p->error();
  }
  return sent;
}

nlohmann::json summarize(const WsIntegrityReader& reader, const Sent& sent, std::uint64_t start, std::uint64_t expected) {
  const IntegrityCounts& c = reader.counts();
  const std::uint64_t drain_ns = c.last_ns > start ? c.last_ns - start : 0;
  nlohmann::json r = {{"expected", expected}, {"accepted", sent.accepted}, {"publish_refused", sent.refused},
                      {"delivered", c.delivered}, {"intact", c.intact},
                      {"lost", sent.accepted - std::min(sent.accepted, c.intact)},
                      {"reordered", c.reordered}, {"duplicates", c.duplicates}, {"corrupted", c.corrupted},
                      {"drain_ms", static_cast<double>(drain_ns) / 1e6},
                      {"msgs_per_s", drain_ns > 0 ? static_cast<double>(c.intact) * 1e9 / static_cast<double>(drain_ns) : 0.0}};
  put_latency(r, "latency", reader.latency());
  if (c.corrupted > 0) r["error"] = std::to_string(c.corrupted) + " corrupt frames, the first: " + reader.first_corrupt();
  else if (!reader.error().empty()) r["error"] = "subscriber: " + reader.error();
  else if (!sent.error.empty()) r["error"] = "publisher: " + sent.error;
  return r;
}

nlohmann::json measure(const ConcurrentOptions& o, const ServerUnderTest& sut) {
  const std::string topic = "concurrent-" + std::to_string(now_ns() % 1000000);
  WsIntegrityReader reader({.server = sut.endpoint, .path = "/ws/" + topic, .size = o.size, .publishers = o.threads,
                            .per_publisher = o.messages});
  if (!reader.start()) return {{"error", "subscriber: " + reader.error()}};
  const std::uint64_t expected = o.threads * o.messages;
  const std::uint64_t start = now_ns();
  const std::uint64_t deadline = start + static_cast<std::uint64_t>(o.timeout * 1e9);
  auto publishers = start_publishers(o, sut.direct, topic, deadline);
  wait_with_progress(o.common, deadline, [&] { return std::to_string(reader.delivered()) + " delivered"; },
                     [&] { return reader.delivered() >= expected; });
  // Refused POSTs never arrive: once every publisher is done, wait only
  // for what the server took.
  const Sent sent = stop_publishers(publishers);
  wait_with_progress(o.common, deadline, [&] { return std::to_string(reader.delivered()) + " delivered"; },
                     [&] { return reader.delivered() >= sent.accepted; });
  reader.stop();
  return summarize(reader, sent, start, expected);
}

}  // namespace

void add_concurrent_send(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ConcurrentOptions>();
  CLI::App* cmd = app.add_subcommand("concurrent-send",
                                     "T publishers x M messages into one WebSocket; every frame checked");
  add_common_options(*cmd, o->common);
  cmd->add_option("-T,--threads", o->threads, "publishers, each a thread with its own connection")
      ->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option("-M,--messages", o->messages, "messages per publisher")
      ->capture_default_str()->check(CLI::Range(1, 1000000));
  cmd->add_option("-s,--size", o->size, "payload bytes (>= 32)")->capture_default_str()->check(CLI::Range(32, 1 << 20));
  cmd->add_option("--timeout", o->timeout, "seconds for every message to arrive")
      ->capture_default_str()->check(CLI::Range(0.1, 600.0));
  add_publish_option(*cmd, o->publish);
  cmd->callback([o, &exit_code] {
    const ReportSpec spec{.scenario = "concurrent-send", .headline = "msgs_per_s", .columns = {
        {"expected", "sent", 1, 0}, {"delivered", "delivered", 1, 0}, {"intact", "intact", 1, 0}, {"lost", "lost", 1, 0},
        {"reordered", "reordered", 1, 0}, {"corrupted", "corrupted", 1, 0}, {"publish_refused", "refused", 1, 0},
        {"msgs_per_s", "kmsg/s", 1e3, 1}, {"drain_ms", "drain ms", 1, 1}, {"latency_p99_us", "p99 us"}}};
    const nlohmann::json options = {{"threads", o->threads}, {"messages", o->messages}, {"size", o->size},
                                    {"publish", publish_mode_name(o->publish)}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); },
                             [o](const nlohmann::json& results) {
                               std::vector<Bar> bars;
                               for (const auto& r : results) bars.push_back({r["server"], r.value("msgs_per_s", 0.0)});
                               return bar_chart("concurrent-send (publish " + publish_mode_name(o->publish) +
                                                    "): intact messages/s into one WebSocket",
                                                "msgs/s", bars);
                             });
  });
}

}  // namespace sluice::bench
