// hostile-memory: N connections (10,000 by default), each doing the worst
// it can to make the server hold memory outside its pool, while one
// publisher and an SSE and a WebSocket subscriber go on. A third of the
// attackers open a WebSocket publisher and send a message of --message
// bytes without its end (the server joins what it gets); a third send a
// chunked POST whose one chunk of --body bytes is never followed by the
// last (the server holds the raw bytes and the joined body); a third
// subscribe over SSE and never read. Every attacker writes as fast as its
// socket takes and stops at the server's answer (a 1009 close, a 503).
//
// Reports the server's resident memory at rest and at its peak (VmHWM),
// how many attackers the server held and how many it refused, and whether
// the subscribers got every event in order. The attack lasts --hold
// seconds, under ws.message_timeout_ms and the request timeout (10 s by
// default), past which the server closes the held attackers itself.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "clock.hpp"
#include "fd_limit.hpp"
#include "hostile_peers.hpp"
#include "net.hpp"
#include "replay_stream.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "server_cpu.hpp"

namespace sluice::bench {

namespace {

struct HostileOptions {
  CommonOptions common;
  std::size_t attackers = 10'000;
  std::size_t message = 1'040'000;  // under ws.max_message (1 MiB)
  std::size_t body = 1'000'000;     // under http.max_body and receive.budget_bytes (1 MiB)
  double hold = 5;
  std::size_t per_source = 1'000;  // under limits.per_ip_connections (1,024)
};

// VmHWM (peak resident) of `pid`, in bytes; -1 when unreadable.
std::int64_t peak_rss_bytes(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("VmHWM:")) return std::strtoll(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return -1;
}

nlohmann::json measure(const HostileOptions& o, const ServerUnderTest& sut) {
  nlohmann::json r;
  if (sut.pid <= 0) {
    r["error"] = "hostile-memory reads the server's memory: start it with --server";
    return r;
  }
  const std::int64_t rss_idle = process_rss_bytes(sut.pid);
  Witnesses witnesses(sut.direct, "keep");
  if (const std::string e = witnesses.open(now_ns() + 10'000'000'000ull); !e.empty()) {
    r["error"] = e;
    return r;
  }
  Attack attack({.server = sut.direct, .count = o.attackers, .message = o.message, .body = o.body,
                 .per_source = o.per_source});
  if (const std::string e = attack.connect(); !e.empty()) {
    r["error"] = e;
    return r;
  }
  std::atomic<bool> stop{false};
  std::thread pump([&] { attack.pump(stop); });
  const std::uint64_t end = now_ns() + static_cast<std::uint64_t>(o.hold * 1e9);
  std::vector<std::size_t> accepted;
  std::size_t publish_failures = 0;
  std::int64_t rss_max = 0;
  double publish_max_ms = 0;
  for (std::size_t attempt = 0; now_ns() < end; ++attempt) {
    const std::uint64_t start = now_ns();
    const PublishAnswer a =
        publish_one(sut.direct, "keep", "event " + std::to_string(attempt), start + 30'000'000'000ull);
    publish_max_ms = std::max(publish_max_ms, static_cast<double>(now_ns() - start) / 1e6);
    if (a.status == 200) {
      accepted.push_back(attempt);
    } else {
      ++publish_failures;
    }
    rss_max = std::max(rss_max, process_rss_bytes(sut.pid));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the publisher's pace
  }
  const AttackTally tally = attack.tally();
  stop = true;
  pump.join();
  r["attackers"] = o.attackers;
  r["held"] = tally.held;
  r["refused_1009"] = tally.closed_1009;
  r["refused_503"] = tally.answered_503;
  r["answered_other"] = tally.answered_other;
  r["attack_bytes_sent"] = tally.bytes_sent;
  r["server_rss_idle_bytes"] = rss_idle;
  r["server_rss_max_bytes"] = rss_max;
  r["server_rss_peak_bytes"] = peak_rss_bytes(sut.pid);
  r["events_published"] = accepted.size();
  r["publish_failures"] = publish_failures;
  r["publish_max_ms"] = publish_max_ms;
  const std::string missing = witnesses.check(accepted, now_ns() + 30'000'000'000ull);
  r["subscribers_in_order"] = missing.empty();
  if (!missing.empty()) r["error"] = missing;
  return r;
}

}  // namespace

void add_hostile_memory(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<HostileOptions>();
  CLI::App* cmd =
      app.add_subcommand("hostile-memory", "N attackers holding unfinished messages and bodies: server memory");
  add_common_options(*cmd, o->common);
  cmd->add_option("-n,--attackers", o->attackers, "attacking connections")->capture_default_str()
      ->check(CLI::Range(3, 200'000));
  cmd->add_option("--message", o->message, "bytes of each unfinished WebSocket message")->capture_default_str();
  cmd->add_option("--body", o->body, "bytes of each unfinished chunked body")->capture_default_str();
  cmd->add_option("--hold", o->hold, "seconds the attack lasts")->capture_default_str();
  cmd->add_option("--per-source", o->per_source, "connections per loopback address (127.0.0.x)")
      ->capture_default_str()->check(CLI::Range(1, 20'000));
  cmd->callback([o, &exit_code] {
    (void)raise_fd_limit(o->attackers + kFdsBeside);
    const ReportSpec spec{.scenario = "hostile-memory", .headline = "server_rss_peak_bytes", .columns = {
        {"attackers", "attackers", 1, 0}, {"held", "held", 1, 0}, {"refused_1009", "1009", 1, 0},
        {"refused_503", "503", 1, 0}, {"server_rss_idle_bytes", "rss idle MB", 1e6, 1},
        {"server_rss_peak_bytes", "rss peak MB", 1e6, 1}, {"events_published", "events", 1, 0},
        {"publish_failures", "pub fail", 1, 0}, {"publish_max_ms", "pub max ms", 1, 0},
        {"subscribers_in_order", "in order"}}};
    const nlohmann::json options = {{"attackers", o->attackers}, {"message", o->message}, {"body", o->body},
                                    {"hold", o->hold}};
    exit_code =
        run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); }, {});
  });
}

}  // namespace sluice::bench
