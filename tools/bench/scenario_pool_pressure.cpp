// pool-pressure: saturate the data path (publishers flat out with
// big events to subscribers that never read, so queued data fills the
// server's buffers) and meanwhile time what must still work: a new client's
// handshake (GET /healthz on a fresh connection), a new SSE stream's head,
// and ping→pong on a WebSocket open on a quiet topic (a server without
// WebSocket gets "ws_ping": "no /ws endpoint" instead).
#include <memory>
#include <thread>
#include <unistd.h>
#include <vector>

#include "clock.hpp"
#include "histogram.hpp"
#include "net.hpp"
#include "probe.hpp"
#include "publisher.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "ws_ping_probe.hpp"

namespace sluice::bench {

namespace {

struct PoolOptions {
  CommonOptions common;
  std::size_t stalled = 50;      // subscribers that never read
  std::size_t publishers = 2;
  std::size_t size = 16384;
  double duration = 5;
  double probe_interval_ms = 20;
  PublishMode publish = PublishMode::post;
};

struct ProbeStats {
  Histogram health;
  Histogram stream;
  Histogram ping;
  std::uint64_t failures = 0;
  std::uint64_t ping_failures = 0;
};

// Opens subscribers with a small window that never read.
std::vector<int> open_stalled(const PoolOptions& o, const io::Endpoint& server, const std::string& topic) {
  std::vector<int> fds;
  for (std::size_t i = 0; i < o.stalled; ++i) {
    const int fd = dial(server, 4096);
    const std::string request = "GET /sse/" + topic + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n";
    if (fd >= 0 && write_all(fd, request)) fds.push_back(fd);
    else if (fd >= 0) ::close(fd);
  }
  return fds;
}

// `pinger` is null when the server has no WebSocket.
void run_probes(const PoolOptions& o, const io::Endpoint& server, std::uint64_t deadline, WsPingProbe* pinger,
                ProbeStats& stats) {
  const auto interval = static_cast<std::uint64_t>(o.probe_interval_ms * 1e6);
  for (std::uint64_t next = now_ns(); now_ns() < deadline; next += interval) {
    const ProbeResult health = probe(server, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n", 2 * kNsPerSec);
    const ProbeResult stream =
        probe(server, "GET /sse/probe HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n", 2 * kNsPerSec);
    if (health.ok) stats.health.record(health.ns);
    if (stream.ok) stats.stream.record(stream.ns);
    stats.failures += (health.ok ? 0 : 1) + (stream.ok ? 0 : 1);
    if (pinger != nullptr) {
      const ProbeResult pong = pinger->ping(2 * kNsPerSec);
      if (pong.ok) stats.ping.record(pong.ns);
      stats.ping_failures += pong.ok ? 0 : 1;
    }
    if (next > now_ns()) std::this_thread::sleep_for(std::chrono::nanoseconds(next - now_ns()));
  }
}

nlohmann::json measure(const PoolOptions& o, const ServerUnderTest& sut) {
  const std::string topic = "pressure-" + std::to_string(now_ns() % 1000000);
  std::vector<int> stalled = open_stalled(o, sut.endpoint, topic);
  // The ping probe's connection is open before the pressure starts: what is
  // timed is a pong on a live connection, not a handshake.
  WsPingProbe pinger(sut.endpoint, "/ws/quiet-" + topic);
  const bool has_ws = pinger.connect(2 * kNsPerSec);
  const std::uint64_t deadline = now_ns() + static_cast<std::uint64_t>(o.duration * 1e9);
  std::vector<std::unique_ptr<Publisher>> publishers;
  for (std::size_t i = 0; i < o.publishers; ++i) {
    publishers.push_back(std::make_unique<Publisher>(
        PublisherOptions{.server = sut.direct, .topic = topic, .mode = o.publish, .index = static_cast<std::uint32_t>(i),
                         .size = o.size, .pipeline = 16, .window = 64}));
    publishers.back()->start(deadline);
  }
  ProbeStats stats;
  std::thread prober([&] { run_probes(o, sut.endpoint, deadline, has_ws ? &pinger : nullptr, stats); });
  wait_with_progress(o.common, deadline, [&] { return std::to_string(stats.failures) + " probe failures"; });
  prober.join();
  nlohmann::json r = {{"probe_failures", stats.failures}, {"stalled_subscribers", stalled.size()}};
  std::uint64_t accepted = 0;
  std::uint64_t refused = 0;
  for (auto& p : publishers) p->stop(), accepted += p->counters().accepted.load(), refused += p->counters().refused.load();
  for (int fd : stalled) ::close(fd);
  r["published"] = accepted;
  r["publish_refused"] = refused;
  put_latency(r, "handshake", stats.health);
  put_latency(r, "stream_head", stats.stream);
  if (has_ws) {
    put_latency(r, "ws_ping", stats.ping);
    r["ws_ping_failures"] = stats.ping_failures;
  } else {
    r["ws_ping"] = "no /ws endpoint: " + pinger.error();
  }
  return r;
}

}  // namespace

void add_pool_pressure(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PoolOptions>();
  CLI::App* cmd = app.add_subcommand("pool-pressure", "saturate the data path; time new handshakes meanwhile");
  add_common_options(*cmd, o->common);
  cmd->add_option("--stalled", o->stalled, "subscribers that never read")->capture_default_str();
  cmd->add_option("-p,--publishers", o->publishers, "publishing connections, flat out")->capture_default_str();
  cmd->add_option("-s,--size", o->size, "payload bytes")->capture_default_str();
  cmd->add_option("-d,--duration", o->duration, "seconds")->capture_default_str();
  cmd->add_option("--probe-interval", o->probe_interval_ms, "ms between probes")->capture_default_str();
  add_publish_option(*cmd, o->publish);
  cmd->callback([o, &exit_code] {
    const ReportSpec spec{.scenario = "pool-pressure", .headline = "handshake_p99_us", .higher_is_better = false,
                          .columns = {{"published", "published", 1, 0}, {"publish_refused", "refused", 1, 0},
                                      {"handshake_p50_us", "hs p50 us"}, {"handshake_p99_us", "hs p99 us"},
                                      {"handshake_max_us", "hs max us"}, {"stream_head_p99_us", "sse p99 us"},
                                      {"ws_ping_p50_us", "ping p50 us"}, {"ws_ping_p99_us", "ping p99 us"},
                                      {"ws_ping_max_us", "ping max us"}, {"probe_failures", "failures", 1, 0},
                                      {"ws_ping_failures", "ping fail", 1, 0}}};
    const nlohmann::json options = {{"stalled", o->stalled}, {"publishers", o->publishers}, {"size", o->size},
                                    {"duration_s", o->duration}, {"publish", publish_mode_name(o->publish)}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); },
                             [](const nlohmann::json& results) {
                               std::vector<Bar> bars;
                               for (const auto& r : results) {
                                 const std::string name = r["server"];
                                 bars.push_back({name + " handshake", r.value("handshake_p99_us", 0.0)});
                                 if (r.contains("ws_ping_p99_us")) bars.push_back({name + " ping", r.value("ws_ping_p99_us", 0.0)});
                               }
                               return bar_chart("pool pressure: p99 handshake and ws ping→pong latency", "us", bars);
                             });
  });
}

}  // namespace sluice::bench
