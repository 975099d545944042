// cluster: sluiced nodes sharing one topic through Redis, against one node
// alone. The bench starts redis-server itself on a free loopback port
// (RedisProcess) and N nodes with the --node command and `--broker URL`;
// K subscribers are spread over the nodes in turn (node = i mod N), and
// over SSE and WebSocket in turn too with --proto both; P publishers POST
// to the first node. The same run first starts one node with no broker and
// puts all K subscribers and the publishers on it.
//
// Each subscriber checks every event it reads for gaps and order, as in
// fanout. A subscriber is owed every event published once it holds its
// stream head (a node answers a first subscriber to a topic only after it
// knows where the topic stands in Redis), so at the end, after the
// publishers have had every request they sent answered (Publisher::finish)
// and the subscribers have read what is still on its way (at most --drain
// seconds), each node's subscribers must have read exactly the events the
// publishing node took times their number: the difference is reported per
// node as "missing", and a run that misses any fails.
//
// Figures over the measured window (after the warm-up): delivered events/s,
// latency p50/p99 of sampled events, each node's CPU per event its own
// subscribers read, Redis's CPU (cores, and per event published), and the
// CPU of every process of the configuration per delivered event, the cost
// compared with one node alone.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client_pool.hpp"
#include "clock.hpp"
#include "fd_limit.hpp"
#include "publisher.hpp"
#include "redis_process.hpp"
#include "replay_stream.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "server_cpu.hpp"
#include "server_process.hpp"
#include "stamp.hpp"

namespace sluice::bench {

namespace {

enum class ProtoMix : std::uint8_t { sse, ws, both };

struct ClusterOptions {
  CommonOptions common;  // --json and --quiet only
  std::string node_command;
  std::string redis_server = "redis-server";
  std::size_t nodes = 3;
  std::size_t subscribers = 300;
  std::size_t publishers = 1;
  ProtoMix protos = ProtoMix::both;
  std::size_t size = 64;
  double rate = 0;  // events/s; 0: as fast as the publishing node answers
  double duration = 5;
  double warmup = 1;
  double drain = 10;
  std::size_t pipeline = 64;
  std::size_t window = 256;
  std::string topic = "cluster";
  FdLimit fds;
};

std::size_t fds_wanted(const ClusterOptions& o) { return o.subscribers + o.publishers + 64; }

// The subscribers of one node that speak one protocol.
struct Group {
  std::size_t node = 0;
  Proto proto = Proto::sse;
  std::size_t sessions = 0;
  std::unique_ptr<ClientPool> pool;
};

// Subscriber i reads from node i mod N; with both protocols, every other
// subscriber of a node speaks WebSocket.
std::vector<Group> plan_groups(const ClusterOptions& o, std::size_t nodes) {
  std::vector<Group> groups;
  for (std::size_t n = 0; n < nodes; ++n) {
    for (Proto proto : {Proto::sse, Proto::ws}) {
      if ((o.protos == ProtoMix::sse && proto == Proto::ws) || (o.protos == ProtoMix::ws && proto == Proto::sse)) continue;
      groups.push_back({.node = n, .proto = proto});
    }
  }
  const std::size_t per_node = groups.size() / nodes;
  for (std::size_t i = 0; i < o.subscribers; ++i) {
    const std::size_t node = i % nodes;
    groups[node * per_node + (i / nodes) % per_node].sessions++;
  }
  std::erase_if(groups, [](const Group& g) { return g.sessions == 0; });
  return groups;
}

struct Snapshot {
  std::uint64_t at = now_ns();
  std::vector<std::uint64_t> node_events;
  std::vector<double> node_cpu_s;
  double redis_cpu_s = -1;
  std::uint64_t published = 0;
};

using Publishers = std::vector<std::unique_ptr<Publisher>>;

std::uint64_t accepted(const Publishers& publishers) {
  std::uint64_t n = 0;
  for (const auto& p : publishers) n += p->counters().accepted.load();
  return n;
}

Snapshot snapshot(const std::vector<Group>& groups, const std::vector<std::unique_ptr<ServerProcess>>& nodes,
                  const RedisProcess* redis, const Publishers& publishers) {
  Snapshot s{.node_events = std::vector<std::uint64_t>(nodes.size()), .node_cpu_s = {},
             .redis_cpu_s = redis != nullptr ? process_cpu_seconds(redis->pid()) : -1,
             .published = accepted(publishers)};
  for (const Group& g : groups) s.node_events[g.node] += g.pool->counters().events.load();
  for (const auto& node : nodes) s.node_cpu_s.push_back(process_cpu_seconds(node->pid()));
  return s;
}

std::uint64_t delivered(const std::vector<Group>& groups) {
  std::uint64_t n = 0;
  for (const Group& g : groups) n += g.pool->counters().events.load();
  return n;
}

// Starts the configuration, runs it, reads the figures. `redis` is null
// for one node alone.
nlohmann::json measure(const ClusterOptions& o, std::size_t node_count, RedisProcess* redis) {
  std::vector<std::unique_ptr<ServerProcess>> nodes;
  for (std::size_t n = 0; n < node_count; ++n) {
    nodes.push_back(std::make_unique<ServerProcess>());
    const std::string command = o.node_command + (redis != nullptr ? " --broker " + redis->url() : "");
    if (std::string error = nodes.back()->start(command); !error.empty()) {
      return {{"error", "node " + std::to_string(n + 1) + ": " + error}};
    }
  }
  if (std::string error = wait_publishable(nodes.front()->endpoint(), o.topic, now_ns() + 10 * kNsPerSec); !error.empty()) {
    return {{"error", error}};
  }

  std::vector<Group> groups = plan_groups(o, node_count);
  for (Group& g : groups) {
    g.pool = std::make_unique<ClientPool>(ClientPoolOptions{
        .session = {.server = nodes[g.node]->endpoint(), .path = stream_path(g.proto, o.topic), .proto = g.proto},
        .sessions = g.sessions});
    g.pool->start();
  }
  for (const Group& g : groups) {
    if (!g.pool->wait_ready(now_ns() + 60 * kNsPerSec)) {
      return {{"error", "subscribers of node " + std::to_string(g.node + 1) + " did not all connect: " +
                            std::to_string(g.pool->counters().ready.load()) + " of " + std::to_string(g.sessions)}};
    }
  }

  const auto publish_ns = static_cast<std::uint64_t>((o.warmup + o.duration) * 1e9);
  // The deadline leaves room for finish() to collect the last replies.
  const std::uint64_t publish_deadline = now_ns() + publish_ns + static_cast<std::uint64_t>((o.drain + 1) * 1e9);
  Publishers publishers;
  for (std::size_t i = 0; i < o.publishers; ++i) {
    publishers.push_back(std::make_unique<Publisher>(PublisherOptions{
        .server = nodes.front()->endpoint(), .topic = o.topic, .index = static_cast<std::uint32_t>(i), .size = o.size,
        .rate = o.rate / static_cast<double>(o.publishers), .pipeline = o.pipeline, .window = o.window}));
    publishers.back()->start(publish_deadline);
  }
  wait_with_progress(o.common, now_ns() + static_cast<std::uint64_t>(o.warmup * 1e9), [] { return std::string("warm-up"); });
  const Snapshot first = snapshot(groups, nodes, redis, publishers);
  for (Group& g : groups) g.pool->record_latency_from(first.at);
  const std::uint64_t first_delivered = delivered(groups);
  wait_with_progress(o.common, first.at + static_cast<std::uint64_t>(o.duration * 1e9), [&] {
    return std::to_string((delivered(groups) - first_delivered) * kNsPerSec /
                          std::max<std::uint64_t>(1, now_ns() - first.at)) +
           " events/s delivered";
  });
  const Snapshot last = snapshot(groups, nodes, redis, publishers);
  std::uint64_t refused = 0;
  std::string publish_error;
  for (auto& p : publishers) {
    p->finish();
    refused += p->counters().refused.load();
    if (publish_error.empty()) publish_error = p->error();
  }
  const std::uint64_t taken = accepted(publishers);
  const std::uint64_t expected = taken * o.subscribers;
  wait_with_progress(o.common, now_ns() + static_cast<std::uint64_t>(o.drain * 1e9),
                     [] { return std::string("draining"); }, [&] { return delivered(groups) >= expected; });

  Histogram latency;
  std::uint64_t gaps = 0, order_errors = 0, closed = 0, failed = 0;
  std::vector<std::uint64_t> node_read(node_count), node_owed(node_count);
  for (Group& g : groups) {
    g.pool->stop();
    latency.merge(g.pool->latency());
    const StreamCounters& c = g.pool->counters();
    gaps += c.gaps.load();
    order_errors += c.order_errors.load();
    closed += c.closed.load();
    failed += c.failed.load();
    node_read[g.node] += c.events.load();
    node_owed[g.node] += taken * g.sessions;
  }
  const double seconds = static_cast<double>(last.at - first.at) / 1e9;
  std::uint64_t window_events = 0;
  double window_cpu = 0;
  nlohmann::json per_node = nlohmann::json::array();
  std::int64_t missing = 0;
  nlohmann::json r;
  for (std::size_t n = 0; n < node_count; ++n) {
    const std::uint64_t events = last.node_events[n] - first.node_events[n];
    const double cpu = last.node_cpu_s[n] - first.node_cpu_s[n];
    const auto node_missing = static_cast<std::int64_t>(node_owed[n]) - static_cast<std::int64_t>(node_read[n]);
    missing += node_missing;
    window_events += events;
    window_cpu += cpu;
    nlohmann::json node = {{"node", n + 1}, {"events_per_s", static_cast<double>(events) / seconds},
                           {"cpu_cores", cpu / seconds}, {"read", node_read[n]}, {"owed", node_owed[n]},
                           {"missing", node_missing}, {"publishes", n == 0}};
    if (events > 0) node["cpu_ns_per_event"] = cpu * 1e9 / static_cast<double>(events);
    const std::string key = "node" + std::to_string(n + 1);
    if (events > 0) r[key + "_cpu_ns_per_event"] = node["cpu_ns_per_event"];
    r[key + "_missing"] = node_missing;
    per_node.push_back(std::move(node));
  }
  const std::uint64_t published = last.published - first.published;
  if (redis != nullptr) {
    const double cpu = last.redis_cpu_s - first.redis_cpu_s;
    window_cpu += cpu;
    r["redis_cpu_cores"] = cpu / seconds;
    if (published > 0) r["redis_cpu_ns_per_publish"] = cpu * 1e9 / static_cast<double>(published);
    if (window_events > 0) r["redis_cpu_ns_per_event"] = cpu * 1e9 / static_cast<double>(window_events);
  }
  r["nodes"] = per_node;
  r["node_count"] = node_count;
  r["broker"] = redis != nullptr;
  r["events_per_s"] = static_cast<double>(window_events) / seconds;
  r["published_per_s"] = static_cast<double>(published) / seconds;
  r["published"] = taken;
  r["publish_refused"] = refused;
  r["delivered"] = delivered(groups);
  r["owed"] = expected;
  r["missing"] = missing;
  r["gaps"] = gaps;
  r["order_errors"] = order_errors;
  r["streams_closed"] = closed;
  r["streams_failed"] = failed;
  put_latency(r, "latency", latency);
  if (window_events > 0) r["cpu_ns_per_event"] = window_cpu * 1e9 / static_cast<double>(window_events);
  // A refused publish is a number every subscriber skips, at most: the
  // server said no, and lost nothing it had taken.
  const std::uint64_t unexplained_gaps = gaps > refused * o.subscribers ? gaps - refused * o.subscribers : 0;
  if (!publish_error.empty()) r["error"] = "publisher: " + publish_error;
  else if (missing != 0 || unexplained_gaps != 0 || order_errors != 0 || closed != 0 || failed != 0) {
    r["error"] = "delivery incomplete: " + std::to_string(missing) + " missing, " + std::to_string(unexplained_gaps) +
                 " gaps not from refused publishes, " + std::to_string(order_errors) + " out of order, " +
                 std::to_string(closed + failed) + " streams ended";
  }
  return r;
}

nlohmann::json run_configuration(const ClusterOptions& o, const std::string& name, bool with_broker) {
  if (!o.fds.enough) return {{"server", name}, {"error", describe_fd_shortage(o.fds, fds_wanted(o))}};
  std::unique_ptr<RedisProcess> redis;
  if (with_broker) {
    redis = std::make_unique<RedisProcess>();
    if (std::string error = redis->start(o.redis_server); !error.empty()) return {{"server", name}, {"error", error}};
  }
  nlohmann::json r = measure(o, with_broker ? o.nodes : 1, redis.get());
  r["server"] = name;
  return r;
}

}  // namespace

void add_cluster(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ClusterOptions>();
  CLI::App* cmd = app.add_subcommand(
      "cluster", "N sluiced nodes sharing a topic through a redis-server the bench starts, against one node alone");
  cmd->add_option("--node", o->node_command,
                  "COMMAND that starts one node and prints 'listening on HOST:PORT' (sluiced --listen 127.0.0.1:0); "
                  "the bench appends --broker URL for the nodes that share Redis")
      ->required();
  cmd->add_option("--redis-server", o->redis_server, "the redis-server program")->capture_default_str();
  cmd->add_option("-N,--nodes", o->nodes, "nodes sharing Redis")->capture_default_str()->check(CLI::Range(2, 16));
  cmd->add_option("-n,--subscribers", o->subscribers, "subscribers, spread over the nodes in turn")
      ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  cmd->add_option_function<std::string>(
         "--proto",
         [o](const std::string& name) {
           o->protos = name == "sse" ? ProtoMix::sse : name == "ws" ? ProtoMix::ws : ProtoMix::both;
         },
         "subscribers' protocol: sse, ws, or both (every other subscriber of a node)")
      ->check(CLI::IsMember({"sse", "ws", "both"}))
      ->default_str("both");
  cmd->add_option("-p,--publishers", o->publishers, "publishing connections, all to the first node")
      ->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("-s,--size", o->size, "payload bytes (>= 32, the stamp and sequence)")->capture_default_str();
  cmd->add_option("-r,--rate", o->rate, "events/s in total; 0: as fast as the publishing node answers")->capture_default_str();
  cmd->add_option("-d,--duration", o->duration, "seconds measured")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "seconds before measuring")->capture_default_str();
  cmd->add_option("--drain", o->drain, "seconds at most for the last events to arrive after publishing stops")
      ->capture_default_str();
  cmd->add_option("--pipeline", o->pipeline, "POSTs per write")->capture_default_str();
  cmd->add_option("--window", o->window, "unanswered POSTs at most")->capture_default_str();
  cmd->add_option("--topic", o->topic, "the topic")->capture_default_str();
  cmd->add_flag("--json", o->common.json, "print the results as JSON on stdout (the table goes to stderr)");
  cmd->add_flag("--quiet", o->common.quiet, "no progress line");
  cmd->callback([o, &exit_code] {
    o->fds = raise_fd_limit(fds_wanted(*o));
    const std::string cluster_name = std::to_string(o->nodes) + " nodes";
    ReportSpec spec{.scenario = "cluster", .headline = "events_per_s", .columns = {
        {"events_per_s", "events/s", 1e6, 3}, {"published_per_s", "pub/s", 1e3, 1},
        {"latency_p50_us", "p50 us"}, {"latency_p99_us", "p99 us"}, {"missing", "missing", 1, 0},
        {"gaps", "gaps", 1, 0}, {"order_errors", "order err", 1, 0}, {"publish_refused", "refused", 1, 0},
        {"cpu_ns_per_event", "cpu ns/ev (all)", 1, 1}},
        .cost = "cpu_ns_per_event"};
    for (std::size_t n = 1; n <= o->nodes; ++n) {
      spec.columns.push_back({"node" + std::to_string(n) + "_cpu_ns_per_event",
                              "node" + std::to_string(n) + (n == 1 ? " (pub)" : "") + " ns/ev", 1, 1});
    }
    spec.columns.push_back({"redis_cpu_cores", "redis cpu", 1, 2});
    spec.columns.push_back({"redis_cpu_ns_per_publish", "redis ns/pub", 1, 0});
    nlohmann::json results = nlohmann::json::array();
    for (const auto& [name, broker] : {std::pair{std::string("alone"), false}, std::pair{cluster_name, true}}) {
      if (!o->common.quiet) std::fprintf(stderr, "cluster: %s\n", name.c_str());
      results.push_back(run_configuration(*o, name, broker));
    }
    bool failed = false;
    for (const auto& r : results) failed = failed || r.contains("error");
    add_ratios(spec, "alone", results);
    const std::string table = format_table(spec, results);
    std::fputs(table.c_str(), o->common.json ? stderr : stdout);
    if (o->common.json) {
      const nlohmann::json options = {{"nodes", o->nodes}, {"subscribers", o->subscribers},
                                      {"publishers", o->publishers}, {"size", o->size},
                                      {"rate", o->rate}, {"duration_s", o->duration},
                                      {"proto", o->protos == ProtoMix::both ? "both" : o->protos == ProtoMix::ws ? "ws" : "sse"},
                                      {"pipeline", o->pipeline}, {"window", o->window}};
      const nlohmann::json doc = {{"scenario", spec.scenario}, {"machine", describe_machine()}, {"options", options},
                                  {"headline", spec.headline}, {"results", results}};
      std::printf("%s\n", doc.dump(2).c_str());
    }
    exit_code = failed ? 1 : 0;
  });
}

}  // namespace sluice::bench
