// connections: N subscribers at once (up to 100,000), then single events
// broadcast to all of them. Reports how fast they connected (stream heads
// per second, a window of 256 in flight per client thread), what the
// server holds for them (its resident memory before and after, per
// connection, and what the kernel's TCP buffers hold), and the delivery
// latency of one broadcast: one sample per subscriber per event, from the
// publisher's stamp to the read. The connections come from several
// loopback addresses (127.0.0.x, --sources) to get past one address's
// ephemeral ports, and RLIMIT_NOFILE is raised as far as it goes before
// the server starts (it inherits the limit); when the limit is too low the
// row says so. Each subscriber's sequence is checked up to its close: gaps,
// the streams that had one, and those the server closed after one. The
// client's CPU over the broadcasts says whether it was the limit.
// A server that makes its own events is refused: start sol-server with
// --mode relay, which sends each published event once to everyone.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client_cpu.hpp"
#include "client_pool.hpp"
#include "clock.hpp"
#include "fd_limit.hpp"
#include "replay_stream.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "server_cpu.hpp"
#include "stamp.hpp"

namespace sluice::bench {

namespace {

struct ConnectionsOptions {
  CommonOptions common;
  std::size_t subscribers = 10'000;
  std::size_t sources = 0;  // 0: one per 20,000 connections
  std::size_t threads = 1;
  std::size_t broadcasts = 5;
  std::size_t size = 64;
  double connect_timeout = 120;
  double broadcast_timeout = 10;
  std::string topic = "connections";
  Proto proto = Proto::ws;
  FdLimit fds;
};

constexpr std::size_t kFdsBeside = 64;  // the bench's own files, publishers, probes

// The kernel's memory for all TCP sockets (/proc/net/sockstat "mem", pages).
std::int64_t kernel_tcp_bytes() {
  std::ifstream in("/proc/net/sockstat");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("TCP:")) continue;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      std::int64_t pages = 0;
      if (word == "mem" && words >> pages) return pages * 4096;
    }
  }
  return -1;
}

// "Max open files" of `pid` (/proc/PID/limits), 0 when unknown.
std::size_t fd_limit_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Max open files")) return std::strtoul(line.c_str() + 26, nullptr, 10);
  }
  return 0;
}

std::uint64_t seconds_to_ns(double s) { return static_cast<std::uint64_t>(s * 1e9); }

// Publishes event `seq` and waits until every ready subscriber has read it.
// Returns the ms until the last one did, or a negative value on timeout.
double broadcast(const ConnectionsOptions& o, const ServerUnderTest& sut, const ClientPool& pool, std::uint64_t seq,
                 std::uint64_t expected_events, std::string& error) {
  const std::uint64_t start = now_ns();
  const std::uint64_t deadline = start + seconds_to_ns(o.broadcast_timeout);
  const PublishAnswer answer = publish_one(sut.direct, o.topic, make_payload(o.size, start, 0, seq), deadline);
  if (answer.status / 100 != 2) {
    error = "publish " + std::to_string(seq) + " answered " + std::to_string(answer.status) + " " + answer.error;
    return -1;
  }
  while (pool.counters().events.load() < expected_events) {
    if (now_ns() >= deadline) {
      error = "broadcast " + std::to_string(seq) + ": " + std::to_string(pool.counters().events.load()) + " of " +
              std::to_string(expected_events) + " deliveries so far after " + std::to_string(o.broadcast_timeout) + " s";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return static_cast<double>(now_ns() - start) / 1e6;
}

nlohmann::json measure(const ConnectionsOptions& o, const ServerUnderTest& sut) {
  std::size_t n = o.subscribers;
  nlohmann::json r = {{"fd_limit", o.fds.soft}, {"fd_limit_hard", o.fds.hard}};
  if (sut.pid > 0) r["server_fd_limit"] = fd_limit_of(sut.pid);
  if (o.fds.soft < n + kFdsBeside) {
    n = o.fds.soft > kFdsBeside ? o.fds.soft - kFdsBeside : 0;
    r["limited_by"] = describe_fd_shortage(o.fds, o.subscribers + kFdsBeside) + "; ran with " + std::to_string(n);
  }
  r["subscribers_wanted"] = o.subscribers;
  if (server_generates(sut.endpoint, o.topic)) {
    r["error"] = "the server makes its own events; sol-server takes part with --mode relay";
    return r;
  }
  const std::size_t sources = o.sources != 0 ? o.sources : (n + 19'999) / 20'000;
  r["sources"] = sources;
  const std::int64_t rss_before = process_rss_bytes(sut.pid);
  const double cpu_before = process_cpu_seconds(sut.pid);

  ClientPool pool({.session = {.server = sut.endpoint, .path = stream_path(o.proto, o.topic), .proto = o.proto},
                   .sessions = n, .threads = o.threads, .latency_every = 1, .sources = sources});
  const std::uint64_t connect_start = now_ns();
  pool.start();
  const bool all = pool.wait_ready(connect_start + seconds_to_ns(o.connect_timeout));
  const double connect_s = static_cast<double>(now_ns() - connect_start) / 1e9;
  const std::uint64_t ready = pool.counters().ready.load();
  r["subscribers"] = ready;
  r["connect_per_s"] = static_cast<double>(ready) / connect_s;
  r["connect_s"] = connect_s;
  const std::int64_t rss_after = process_rss_bytes(sut.pid);
  const std::int64_t kernel_after = kernel_tcp_bytes();
  if (rss_before >= 0 && rss_after >= 0) {
    r["server_rss_idle_bytes"] = rss_before;
    r["server_rss_bytes"] = rss_after;
    if (ready > 0) r["server_rss_per_conn_bytes"] = static_cast<double>(rss_after - rss_before) / static_cast<double>(ready);
  }
  // What the kernel's TCP buffers hold (all sockets on the machine; idle
  // ones hold next to nothing: a socket's own structures are not counted).
  if (kernel_after >= 0) r["kernel_tcp_buffer_bytes"] = kernel_after;
  if (cpu_before >= 0 && ready > 0) {
    r["server_cpu_us_per_connect"] = (process_cpu_seconds(sut.pid) - cpu_before) * 1e6 / static_cast<double>(ready);
  }
  if (!all) {
    r["error"] = std::to_string(ready) + " of " + std::to_string(n) + " subscribers got their stream (" +
                 std::to_string(pool.counters().failed.load()) + " failed)";
    return r;
  }

  // Event 1 is not measured: once everyone has it, everyone is subscribed.
  pool.record_latency_from(UINT64_MAX);
  std::string error;
  if (broadcast(o, sut, pool, 1, ready, error) < 0) {
    r["error"] = "not every subscriber was in the topic: " + error;
    return r;
  }
  pool.record_latency_from(now_ns());
  const std::uint64_t broadcasts_start = now_ns();
  const double client_before = self_cpu_seconds();
  const std::vector<double> readers_before = pool.reader_cpu_seconds();
  Histogram all_ms;
  for (std::uint64_t k = 1; k <= o.broadcasts && error.empty(); ++k) {
    const double ms = broadcast(o, sut, pool, k + 1, ready * (k + 1), error);
    if (ms >= 0) all_ms.record(static_cast<std::uint64_t>(ms * 1e3));
  }
  if (!error.empty()) r["error"] = error;
  // What the client used while the broadcasts went out: a latency measured
  // by a client that was busy all the time is partly the client's.
  const double seconds = static_cast<double>(now_ns() - broadcasts_start) / 1e9;
  const std::vector<double> readers_after = pool.reader_cpu_seconds();
  double busiest = 0;
  for (std::size_t i = 0; i < readers_before.size() && i < readers_after.size(); ++i) {
    busiest = std::max(busiest, (readers_after[i] - readers_before[i]) / seconds);
  }
  const double process = (self_cpu_seconds() - client_before) / seconds;
  r["client_reader_cpu_cores"] = busiest;
  r["client_cpu_cores"] = process;
  r["client_limit"] = client_was_limit(busiest, process, allowed_cores());
  pool.stop();
  put_latency(r, "latency", pool.latency());
  r["all_reached_max_ms"] = static_cast<double>(all_ms.max()) / 1e3;
  r["gaps"] = pool.counters().gaps.load();
  r["streams_with_gaps"] = pool.counters().gapped.load();
  r["streams_closed"] = pool.counters().closed.load();
  r["streams_closed_after_gap"] = pool.counters().closed_after_gap.load();
  r["streams_failed"] = pool.counters().failed.load();
  return r;
}

}  // namespace

void add_connections(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ConnectionsOptions>();
  CLI::App* cmd = app.add_subcommand("connections", "N subscribers at once: connect rate, server memory, broadcast latency");
  add_common_options(*cmd, o->common);
  cmd->add_option("-n,--subscribers", o->subscribers, "subscribers")->capture_default_str()->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--sources", o->sources, "connect from 127.0.0.1..127.0.0.N in turn; 0: one address per 20,000")
      ->capture_default_str()->check(CLI::Range(0, 254));
  cmd->add_option("-t,--threads", o->threads, "client threads")->capture_default_str();
  cmd->add_option("-b,--broadcasts", o->broadcasts, "events measured, one at a time")->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("-s,--size", o->size, "payload bytes")->capture_default_str();
  cmd->add_option("--connect-timeout", o->connect_timeout, "seconds for all to connect")->capture_default_str();
  cmd->add_option("--broadcast-timeout", o->broadcast_timeout, "seconds for one event to reach all")->capture_default_str();
  add_proto_option(*cmd, o->proto);
  cmd->get_option("--proto")->default_str("ws");
  cmd->callback([o, &exit_code] {
    // Before any server starts: it inherits this limit.
    o->fds = raise_fd_limit(o->subscribers + kFdsBeside);
    const ReportSpec spec{.scenario = "connections", .headline = "connect_per_s", .columns = {
        {"subscribers", "subs", 1, 0}, {"connect_per_s", "conn/s", 1, 0}, {"server_rss_bytes", "rss MB", 1e6, 1},
        {"server_rss_per_conn_bytes", "B/conn", 1, 0}, {"kernel_tcp_buffer_bytes", "tcp buf MB", 1e6, 1},
        {"server_cpu_us_per_connect", "cpu us/conn", 1, 1}, {"latency_p50_us", "p50 us"},
        {"latency_p99_us", "p99 us"}, {"latency_max_us", "max us"}, {"gaps", "gaps", 1, 0},
        {"streams_with_gaps", "gap streams", 1, 0}, {"streams_closed", "closed", 1, 0},
        {"client_reader_cpu_cores", "client reader cpu", 1, 2}, {"client_limit", "client limit"}}};
    const nlohmann::json options = {{"subscribers", o->subscribers}, {"sources", o->sources}, {"threads", o->threads},
                                    {"broadcasts", o->broadcasts}, {"size", o->size}, {"proto", proto_name(o->proto)}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); }, {});
  });
}

}  // namespace sluice::bench
