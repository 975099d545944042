// connections: N subscribers at once (100,000 and more), then single
// events broadcast to all of them. Reports how fast they connected (stream
// heads per second, a window of 256 in flight per client thread), what the
// server holds for them (its resident memory before and after, per
// connection, what the kernel's TCP buffers hold, and how much its slab
// caches grew: the sockets' own structures, both ends), and the delivery
// latency of one broadcast: one sample per subscriber per event, from the
// publisher's stamp to the read. The connections come from several
// loopback addresses (127.0.0.x, --sources) to get past one address's
// ephemeral ports.
//
// A process may hold only RLIMIT_NOFILE descriptors (raised here as far as
// the hard limit goes, before any server starts: it inherits the limit),
// and that limit is per process. So the subscribers live in K worker
// processes (ClientWorkers; K from --workers, or as many as the limit
// needs), and with --nodes M the server is M nodes of the --server's
// command joined through a redis-server the bench starts (each node gets
// `--broker URL`), subscriber i on node i mod M. Every broadcast is POSTed
// to the first node and reaches every node through Redis, the first's
// own subscribers included: the latency then includes Redis's round trip.
// When even that is too few descriptors the row says so and runs with
// what fits.
//
// Each subscriber's sequence is checked up to its close: gaps, the streams
// that had one, and those the server closed after one. The client's CPU
// over the broadcasts (its busiest worker process, and all its processes)
// says whether it was the limit.
// A server that makes its own events is refused: start sol-server with
// --mode relay, which sends each published event once to everyone.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client_cpu.hpp"
#include "client_workers.hpp"
#include "clock.hpp"
#include "fd_limit.hpp"
#include "redis_process.hpp"
#include "replay_stream.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "server_cpu.hpp"
#include "server_process.hpp"
#include "stamp.hpp"

namespace sluice::bench {

namespace {

struct ConnectionsOptions {
  CommonOptions common;
  std::size_t subscribers = 10'000;
  std::size_t sources = 0;  // 0: one per 20,000 connections
  std::size_t threads = 1;  // per worker
  std::size_t workers = 0;  // 0: as many as RLIMIT_NOFILE needs
  std::size_t nodes = 1;
  std::string redis_server = "redis-server";
  std::size_t broadcasts = 5;
  std::size_t size = 64;
  double connect_timeout = 120;
  double broadcast_timeout = 10;
  std::string topic = "connections";
  Proto proto = Proto::ws;
  FdLimit fds;
  std::unique_ptr<RedisProcess> redis;  // with --nodes above 1, for the whole run
  std::size_t runs = 0;                 // servers measured so far (each its own topic in Redis)
};

// One number of a /proc file of "Key: value" or "Key value ..." lines: the
// word after `word` on the line starting with `line_start`.
std::int64_t proc_figure(const char* path, std::string_view line_start, std::string_view word) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(line_start)) continue;
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      std::int64_t value = 0;
      if (w == word && words >> value) return value;
    }
  }
  return -1;
}

// The kernel's memory for all TCP sockets' buffers (/proc/net/sockstat
// "mem", pages).
std::int64_t kernel_tcp_bytes() {
  const std::int64_t pages = proc_figure("/proc/net/sockstat", "TCP:", "mem");
  return pages < 0 ? -1 : pages * 4096;
}

// The kernel's slab caches (/proc/meminfo "Slab", kB): where a socket's
// own structures live, which the TCP buffer figure leaves out.
std::int64_t kernel_slab_bytes() {
  const std::int64_t kb = proc_figure("/proc/meminfo", "Slab:", "Slab:");
  return kb < 0 ? -1 : kb * 1024;
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

// One node of the server under test: the runner's process first, then
// those this scenario started with the same command.
struct Node {
  pid_t pid = -1;
  io::Endpoint endpoint;
  std::unique_ptr<ServerProcess> process;  // null for the runner's
  std::size_t subscribers = 0;             // planned: i mod nodes
  std::int64_t rss_before = -1;
  double cpu_before = -1;
};

// Publishes event `seq` and waits until every ready subscriber has read it.
// Returns the ms until the last one did, or a negative value on timeout.
// `kernel_peak` keeps the most the kernel's TCP buffers held meanwhile,
// read every few ms: the event sits in 2N socket buffers on its way.
double broadcast(const ConnectionsOptions& o, const io::Endpoint& publish_to, const std::string& topic,
                 const ClientWorkers& clients, std::uint64_t seq, std::uint64_t expected_events,
                 std::int64_t& kernel_peak, std::string& error) {
  const std::uint64_t start = now_ns();
  const std::uint64_t deadline = start + seconds_to_ns(o.broadcast_timeout);
  const PublishAnswer answer = publish_one(publish_to, topic, make_payload(o.size, start, 0, seq), deadline);
  if (answer.status / 100 != 2) {
    error = "publish " + std::to_string(seq) + " answered " + std::to_string(answer.status) + " " + answer.error;
    return -1;
  }
  std::uint64_t next_kernel_read = 0;
  while (clients.total(&StreamCounters::events) < expected_events) {
    if (now_ns() >= next_kernel_read) {
      kernel_peak = std::max(kernel_peak, kernel_tcp_bytes());
      next_kernel_read = now_ns() + 5 * kNsPerMs;
    }
    if (now_ns() >= deadline) {
      error = "broadcast " + std::to_string(seq) + ": " + std::to_string(clients.total(&StreamCounters::events)) +
              " of " + std::to_string(expected_events) + " deliveries so far after " +
              std::to_string(o.broadcast_timeout) + " s";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return static_cast<double>(now_ns() - start) / 1e6;
}

// CPU seconds each worker process has used so far, read from its CPU
// clock (exact, where /proc counts in ticks of 10 ms); -1 for one gone.
std::vector<double> workers_cpu(const ClientWorkers& clients) {
  std::vector<double> out;
  for (const pid_t pid : clients.pids()) {
    clockid_t clock;
    timespec ts{};
    const bool read = ::clock_getcpuclockid(pid, &clock) == 0 && ::clock_gettime(clock, &ts) == 0;
    out.push_back(read ? static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9 : -1);
  }
  return out;
}

// Starts nodes 2..M from the runner's command, reads every node's memory
// and CPU before any subscriber connects. An error line, or "".
std::string start_nodes(const ConnectionsOptions& o, const ServerUnderTest& sut, std::size_t n, std::vector<Node>& nodes) {
  nodes.push_back({.pid = sut.pid, .endpoint = sut.direct});
  for (std::size_t k = 1; k < o.nodes; ++k) {
    Node node{.process = std::make_unique<ServerProcess>()};
    if (std::string error = node.process->start(sut.command); !error.empty()) {
      return "node " + std::to_string(k + 1) + ": " + error;
    }
    node.pid = node.process->pid();
    node.endpoint = node.process->endpoint();
    nodes.push_back(std::move(node));
  }
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    nodes[k].subscribers = n / nodes.size() + (k < n % nodes.size() ? 1 : 0);
    nodes[k].rss_before = process_rss_bytes(nodes[k].pid);
    nodes[k].cpu_before = process_cpu_seconds(nodes[k].pid);
  }
  return "";
}

nlohmann::json measure(ConnectionsOptions& o, const ServerUnderTest& sut) {
  std::size_t n = o.subscribers;
  nlohmann::json r = {{"fd_limit", o.fds.soft}, {"fd_limit_hard", o.fds.hard}, {"node_count", o.nodes}};
  if (o.nodes > 1 && sut.command.empty()) {
    r["error"] = "--nodes starts more nodes of the server: name it with --server NAME=COMMAND";
    return r;
  }
  const std::size_t server_fds = sut.pid > 0 ? fd_limit_of(sut.pid) : 0;
  if (sut.pid > 0) r["server_fd_limit"] = server_fds;
  // What one process may hold: every client worker and every node must
  // fit their share (a --target's limit is its own business).
  const std::size_t per_process = o.fds.soft > kFdsBeside ? o.fds.soft - kFdsBeside : 1;
  const std::size_t workers = o.workers != 0 ? o.workers : workers_for(n, per_process);
  const std::size_t per_node = server_fds > kFdsBeside ? server_fds - kFdsBeside : per_process;
  const std::size_t client_share = (n + workers - 1) / workers;
  const std::size_t node_share = sut.pid > 0 ? (n + o.nodes - 1) / o.nodes : 0;
  if (client_share > per_process || node_share > per_node) {
    n = std::min(workers * per_process, sut.pid > 0 ? o.nodes * per_node : SIZE_MAX);
    r["limited_by"] = describe_fd_shortage(o.fds, std::max(client_share, node_share) + kFdsBeside) + "; ran with " +
                      std::to_string(n) + " over " + std::to_string(workers) + " client processes and " +
                      std::to_string(o.nodes) + " server nodes (--workers, --nodes spread them)";
  }
  r["subscribers_wanted"] = o.subscribers;
  r["workers"] = workers;
  // With a broker every server of the run shares one Redis: each reads a
  // topic of its own, which no earlier run's stream holds.
  const std::string topic = o.redis ? o.topic + "-" + std::to_string(++o.runs) : o.topic;
  std::vector<Node> nodes;
  if (std::string error = start_nodes(o, sut, n, nodes); !error.empty()) {
    r["error"] = error;
    return r;
  }
  if (o.redis) {
    // A node with a broker takes publishes once its link to Redis is up.
    if (std::string error = wait_publishable(sut.direct, topic, now_ns() + 10 * kNsPerSec); !error.empty()) {
      r["error"] = error;
      return r;
    }
    r["broker"] = "every broadcast POSTed to node 1 went through Redis to every node, node 1 included";
  }
  if (server_generates(sut.endpoint, topic)) {
    r["error"] = "the server makes its own events; sol-server takes part with --mode relay";
    return r;
  }
  const std::size_t sources = o.sources != 0 ? o.sources : (n + 19'999) / 20'000;
  r["sources"] = sources;
  const std::int64_t slab_before = kernel_slab_bytes();
  const std::int64_t kernel_before = kernel_tcp_bytes();

  std::vector<io::Endpoint> endpoints;
  // The link emulator, when there is one, stands in front of node 1 only.
  for (const Node& node : nodes) endpoints.push_back(endpoints.empty() ? sut.endpoint : node.endpoint);
  ClientWorkers clients({.session = {.server = sut.endpoint, .path = stream_path(o.proto, topic), .proto = o.proto},
                         .sessions = n, .threads = o.threads, .latency_every = 1, .sources = sources,
                         .servers = endpoints},
                        workers);
  const std::uint64_t connect_start = now_ns();
  if (std::string error = clients.start(); !error.empty()) {
    r["error"] = error;
    return r;
  }
  const bool all = clients.wait_ready(connect_start + seconds_to_ns(o.connect_timeout));
  const double connect_s = static_cast<double>(now_ns() - connect_start) / 1e9;
  const std::uint64_t ready = clients.total(&StreamCounters::ready);
  r["subscribers"] = ready;
  r["connect_per_s"] = static_cast<double>(ready) / connect_s;
  r["connect_s"] = connect_s;
  std::int64_t rss_before = 0, rss_after = 0;
  double cpu_connect = 0;
  bool rss_known = true;
  nlohmann::json node_rows = nlohmann::json::array();
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Node& node = nodes[k];
    const std::int64_t after = process_rss_bytes(node.pid);
    nlohmann::json row = {{"node", k + 1}, {"subscribers", node.subscribers}};
    if (node.pid > 0) row["fd_limit"] = fd_limit_of(node.pid);
    if (node.rss_before >= 0 && after >= 0) {
      row["rss_before_bytes"] = node.rss_before;
      row["rss_bytes"] = after;
      if (node.subscribers > 0) {
        row["rss_per_conn_bytes"] = static_cast<double>(after - node.rss_before) / static_cast<double>(node.subscribers);
      }
      rss_before += node.rss_before;
      rss_after += after;
    } else {
      rss_known = false;
    }
    if (node.cpu_before >= 0) cpu_connect += process_cpu_seconds(node.pid) - node.cpu_before;
    node_rows.push_back(std::move(row));
  }
  r["nodes"] = node_rows;
  const std::int64_t kernel_after = kernel_tcp_bytes();
  const std::int64_t slab_after = kernel_slab_bytes();
  if (rss_known && sut.pid > 0) {
    r["server_rss_idle_bytes"] = rss_before;
    r["server_rss_bytes"] = rss_after;
    if (ready > 0) r["server_rss_per_conn_bytes"] = static_cast<double>(rss_after - rss_before) / static_cast<double>(ready);
  }
  // What the kernel's TCP buffers hold (all sockets on the machine, so
  // also before the connections, to tell another job's from this run's;
  // idle ones hold next to nothing: a socket's own structures are not
  // counted), and how much its slab caches grew meanwhile (both ends of
  // every connection, and whatever else the machine did).
  if (kernel_before >= 0) r["kernel_tcp_buffer_before_bytes"] = kernel_before;
  if (kernel_after >= 0) r["kernel_tcp_buffer_bytes"] = kernel_after;
  if (slab_before >= 0 && slab_after >= 0) {
    r["kernel_slab_growth_bytes"] = slab_after - slab_before;
    if (ready > 0) r["kernel_slab_per_conn_bytes"] = static_cast<double>(slab_after - slab_before) / static_cast<double>(ready);
  }
  if (sut.pid > 0 && ready > 0) r["server_cpu_us_per_connect"] = cpu_connect * 1e6 / static_cast<double>(ready);
  nlohmann::json per_worker = nlohmann::json::array();
  for (std::size_t w = 0; w < clients.size(); ++w) {
    per_worker.push_back({{"worker", w + 1}, {"sessions", clients.shares()[w].count},
                          {"ready", clients.of(w, &StreamCounters::ready)},
                          {"failed", clients.of(w, &StreamCounters::failed)}});
  }
  r["worker_counts"] = per_worker;
  if (!all) {
    r["error"] = std::to_string(ready) + " of " + std::to_string(n) + " subscribers got their stream (" +
                 std::to_string(clients.total(&StreamCounters::failed)) + " failed)";
    return r;
  }

  // Event 1 is not measured: once everyone has it, everyone is subscribed.
  std::string error;
  if (!clients.record_latency_from(UINT64_MAX)) {
    r["error"] = "a client worker did not take the latency mark in time";
    return r;
  }
  std::int64_t kernel_peak = -1;
  if (broadcast(o, sut.direct, topic, clients, 1, ready, kernel_peak, error) < 0) {
    r["error"] = "not every subscriber was in the topic: " + error;
    return r;
  }
  if (!clients.record_latency_from(now_ns())) {
    r["error"] = "a client worker did not take the latency mark in time";
    return r;
  }
  const std::uint64_t broadcasts_start = now_ns();
  const double client_before = self_cpu_seconds();
  const std::vector<double> workers_before = workers_cpu(clients);
  Histogram all_ms;
  for (std::uint64_t k = 1; k <= o.broadcasts && error.empty(); ++k) {
    const double ms = broadcast(o, sut.direct, topic, clients, k + 1, ready * (k + 1), kernel_peak, error);
    if (ms >= 0) all_ms.record(static_cast<std::uint64_t>(ms * 1e3));
  }
  if (!error.empty()) r["error"] = error;
  // What the client used while the broadcasts went out: a latency measured
  // by a client that was busy all the time is partly the client's.
  const double seconds = static_cast<double>(now_ns() - broadcasts_start) / 1e9;
  // A worker's main thread sleeps on its control socket, so its CPU is its reader
  // threads': with -t 1 (the default) the reader's own, with more an upper
  // bound on its busiest one.
  const std::vector<double> workers_after = workers_cpu(clients);
  double busiest = 0, process = (self_cpu_seconds() - client_before) / seconds;
  for (std::size_t w = 0; w < workers_before.size() && w < workers_after.size(); ++w) {
    const double cores = (workers_after[w] - workers_before[w]) / seconds;
    if (workers_before[w] < 0 || workers_after[w] < 0) continue;
    busiest = std::max(busiest, cores);
    process += cores;
  }
  if (kernel_peak >= 0) r["kernel_tcp_buffer_peak_bytes"] = kernel_peak;
  r["client_reader_cpu_cores"] = busiest;
  r["client_cpu_cores"] = process;
  r["client_limit"] = client_was_limit(busiest, process, allowed_cores());
  clients.stop();
  if (clients.lost() != 0 && !r.contains("error")) {
    r["error"] = std::to_string(clients.lost()) + " client workers ended without reporting";
  }
  put_latency(r, "latency", clients.latency());
  r["all_reached_max_ms"] = static_cast<double>(all_ms.max()) / 1e3;
  r["gaps"] = clients.total(&StreamCounters::gaps);
  r["streams_with_gaps"] = clients.total(&StreamCounters::gapped);
  r["streams_closed"] = clients.total(&StreamCounters::closed);
  r["streams_closed_after_gap"] = clients.total(&StreamCounters::closed_after_gap);
  r["streams_failed"] = clients.total(&StreamCounters::failed);
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
  cmd->add_option("-t,--threads", o->threads, "client threads in each worker process")->capture_default_str();
  cmd->add_option("-w,--workers", o->workers,
                  "client processes sharing the subscribers; 0: as many as RLIMIT_NOFILE needs")
      ->capture_default_str()->check(CLI::Range(0, 64));
  cmd->add_option("-N,--nodes", o->nodes,
                  "server nodes: the --server's command started this many times, each with --broker URL of a "
                  "redis-server the bench starts; subscriber i on node i mod N, broadcasts POSTed to node 1")
      ->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--redis-server", o->redis_server, "the redis-server program (with --nodes above 1)")
      ->capture_default_str();
  cmd->add_option("-b,--broadcasts", o->broadcasts, "events measured, one at a time")->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("-s,--size", o->size, "payload bytes")->capture_default_str();
  cmd->add_option("--connect-timeout", o->connect_timeout, "seconds for all to connect")->capture_default_str();
  cmd->add_option("--broadcast-timeout", o->broadcast_timeout, "seconds for one event to reach all")->capture_default_str();
  add_proto_option(*cmd, o->proto);
  cmd->get_option("--proto")->default_str("ws");
  cmd->callback([o, &exit_code] {
    // Before any server starts: it inherits this limit. Each process needs
    // only its share, but a lone process wants them all.
    o->fds = raise_fd_limit(o->subscribers + kFdsBeside);
    if (o->nodes > 1) {
      o->redis = std::make_unique<RedisProcess>();
      if (std::string error = o->redis->start(o->redis_server); !error.empty()) {
        std::fprintf(stderr, "connections: %s\n", error.c_str());
        exit_code = 1;
        return;
      }
      for (ServerSpec& server : o->common.servers) server.command += " --broker " + o->redis->url();
    }
    const ReportSpec spec{.scenario = "connections", .headline = "connect_per_s", .columns = {
        {"subscribers", "subs", 1, 0}, {"node_count", "nodes", 1, 0}, {"workers", "client procs", 1, 0},
        {"connect_per_s", "conn/s", 1, 0}, {"server_rss_bytes", "rss MB", 1e6, 1},
        {"server_rss_per_conn_bytes", "B/conn", 1, 0}, {"kernel_tcp_buffer_before_bytes", "tcp before MB", 1e6, 1},
        {"kernel_tcp_buffer_bytes", "tcp buf MB", 1e6, 1},
        {"kernel_tcp_buffer_peak_bytes", "tcp peak MB", 1e6, 1},
        {"kernel_slab_per_conn_bytes", "slab B/conn", 1, 0},
        {"server_cpu_us_per_connect", "cpu us/conn", 1, 1}, {"latency_p50_us", "p50 us"},
        {"latency_p99_us", "p99 us"}, {"latency_max_us", "max us"}, {"gaps", "gaps", 1, 0},
        {"streams_with_gaps", "gap streams", 1, 0}, {"streams_closed", "closed", 1, 0},
        {"client_reader_cpu_cores", "client reader cpu", 1, 2}, {"client_limit", "client limit"}}};
    const nlohmann::json options = {{"subscribers", o->subscribers}, {"sources", o->sources}, {"threads", o->threads},
                                    {"workers", o->workers}, {"nodes", o->nodes},
                                    {"broadcasts", o->broadcasts}, {"size", o->size}, {"proto", proto_name(o->proto)}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); }, {});
    o->redis.reset();
  });
}

}  // namespace sluice::bench
