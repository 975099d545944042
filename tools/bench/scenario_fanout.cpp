// fanout: P publishers, N subscribers on one topic, events of S bytes at a
// target rate or flat out. Reports delivered events/s and bytes/s over the
// measured window (after a warm-up) and the latency of sampled events.
// Subscribers speak SSE or WebSocket (--proto), publishers POST or send
// WebSocket frames (--publish); SSE subscribers may read over HTTP/2, K
// streams to a connection, chosen per server (NAME@h2c/K in clear,
// NAME@h2/K by ALPN over TLS; --h2c for every server in clear). Gaps are
// the sequence numbers a subscriber never saw before its stream ended (stamp.hpp), which includes every POST
// the server refused; the streams that saw one are counted, and those the
// server then closed (a lossless subscriber must never see a gap before
// its close: it would resume after it and miss those events for good).
// Every row says what the client itself used (its busiest reader thread
// and the whole process) and whether that made the client the limit. A
// server that makes its own events (sol-server says "generator" in its
// publish reply) gets no publisher. A server named with --tls-server is
// read, published to and probed over TLS.
#include <algorithm>
#include <memory>
#include <vector>

#include "client_cpu.hpp"
#include "client_pool.hpp"
#include "clock.hpp"
#include "fd_limit.hpp"
#include "publisher.hpp"
#include "replay_stream.hpp"
#include "runner.hpp"
#include "scenarios.hpp"
#include "server_cpu.hpp"
#include "stamp.hpp"

namespace sluice::bench {

namespace {

struct FanoutOptions {
  CommonOptions common;
  std::size_t subscribers = 100;
  std::size_t publishers = 1;
  std::size_t size = 64;
  double rate = 0;  // events/s over all publishers; 0: flat out
  double duration = 5;
  double warmup = 1;
  std::size_t threads = 1;
  std::size_t pipeline = 64;
  std::size_t window = 256;
  std::uint64_t ahead = 2048;
  std::uint32_t latency_every = 1;
  std::size_t sources = 0;
  int receive_buffer = 0;  // each subscriber's SO_RCVBUF; 0: kernel default (autotuned)
  std::string topic = "fanout";
  FdLimit fds;  // raised before the first server starts (it inherits the limit)
  Proto proto = Proto::sse;
  PublishMode publish = PublishMode::post;
  std::string token;  // presented as ?token= by every subscriber and publisher
};

// Most streams on one HTTP/2 connection (@h2c/K, --streams-per-connection).
constexpr std::size_t kMostStreamsPerConnection = 10000;

// Connections the subscribers take: one each over HTTP/1.1, K to a
// connection over HTTP/2.
std::size_t connections(const FanoutOptions& o, HttpVersion http, std::size_t streams_per_connection) {
  return http == HttpVersion::h2 ? o.subscribers / streams_per_connection : o.subscribers;
}

// Subscribers, publishers, and the bench's own files and probes, for the
// server of the run that takes the most.
std::size_t fds_wanted(const FanoutOptions& o) {
  std::size_t most = 0;
  for (const ServerSpec& s : servers_of(o.common)) most = std::max(most, connections(o, s.http, s.streams_per_connection));
  return most + o.publishers + 64;
}

struct Snapshot {
  std::uint64_t at = now_ns();
  std::uint64_t events;
  std::uint64_t bytes;
  std::uint64_t published;
  double server_cpu_s;  // negative when the server is not ours (--target)
  double client_cpu_s;  // this process
  std::vector<double> reader_cpu_s;
};

Snapshot snapshot(const ClientPool& pool, const std::vector<std::unique_ptr<Publisher>>& publishers,
                  const ServerUnderTest& sut) {
  Snapshot s{.events = pool.counters().events.load(), .bytes = pool.counters().bytes.load(), .published = 0,
             .server_cpu_s = process_cpu_seconds(sut.pid), .client_cpu_s = self_cpu_seconds(),
             .reader_cpu_s = pool.reader_cpu_seconds()};
  for (const auto& p : publishers) s.published += p->counters().accepted.load();
  return s;
}

// What the client used between two snapshots, and whether it was the limit;
// and its reader threads' CPU per event read, which says, like the
// server's, what it costs whatever else the machine runs: a client that
// spends fewer ns per event than the server out-reads it.
void put_client_cpu(nlohmann::json& r, const Snapshot& first, const Snapshot& last, double seconds) {
  double busiest = 0;
  double readers = 0;
  for (std::size_t i = 0; i < first.reader_cpu_s.size() && i < last.reader_cpu_s.size(); ++i) {
    const double used = last.reader_cpu_s[i] - first.reader_cpu_s[i];
    busiest = std::max(busiest, used / seconds);
    readers += used;
  }
  const double process = (last.client_cpu_s - first.client_cpu_s) / seconds;
  const std::size_t cores = allowed_cores();
  r["client_reader_cpu_cores"] = busiest;
  r["client_cpu_cores"] = process;
  r["client_cores_allowed"] = cores;
  r["client_limit"] = client_was_limit(busiest, process, cores);
  if (last.events > first.events) {
    r["client_reader_ns_per_event"] = readers * 1e9 / static_cast<double>(last.events - first.events);
  }
}

// A WebSocket publisher gets no replies, so flat out it would run as far
// ahead as the kernel's buffers let it and the latency measured would be
// theirs; it is held to `ahead` events beyond what the subscribers read.
std::vector<std::unique_ptr<Publisher>> start_publishers(const FanoutOptions& o, const ServerUnderTest& sut,
                                                         const ClientPool& pool, std::uint64_t deadline) {
  std::vector<std::unique_ptr<Publisher>> publishers;
  const bool closed_loop = o.publish == PublishMode::ws && o.rate == 0;
  for (std::size_t i = 0; i < o.publishers; ++i) {
    PublisherOptions p{.server = sut.endpoint, .topic = o.topic, .token = o.token, .mode = o.publish, .tls = sut.tls,
                       .index = static_cast<std::uint32_t>(i),
                       .size = o.size, .rate = o.rate / static_cast<double>(o.publishers), .pipeline = o.pipeline,
                       .window = o.window};
    if (closed_loop) {
      p.delivered = &pool.counters().events;
      p.max_ahead = o.ahead;
      p.delivered_per_event = o.subscribers * o.publishers;
      p.closed_streams = &pool.counters().closed;
      p.closed_events = &pool.counters().closed_events;
      p.publishers = o.publishers;
    }
    publishers.push_back(std::make_unique<Publisher>(p));
    publishers.back()->start(deadline);
  }
  return publishers;
}

nlohmann::json measure(const FanoutOptions& o, const ServerUnderTest& sut) {
  if (!o.fds.enough) return {{"error", describe_fd_shortage(o.fds, fds_wanted(o))}};
  const bool generator = server_generates(sut.endpoint, o.topic, sut.tls.get());
  const bool h2 = sut.http == HttpVersion::h2;
  const std::size_t sessions = connections(o, sut.http, sut.streams_per_connection);
  ClientPool pool({.session = {.server = sut.endpoint, .path = stream_path(o.proto, o.topic) + (o.token.empty() ? "" : "?token=" + o.token),
                               .receive_buffer = o.receive_buffer, .proto = o.proto,
                               .tls = sut.tls, .h2_streams = h2 ? sut.streams_per_connection : 0},
                   .sessions = sessions, .threads = o.threads, .latency_every = o.latency_every,
                   .sources = o.sources});
  pool.start();
  if (!pool.wait_ready(now_ns() + 60 * kNsPerSec)) {
    return {{"error", "subscribers did not all connect: " + std::to_string(pool.counters().ready.load()) + " of " +
                          std::to_string(sessions) + " have their stream" + (h2 ? "s" : "")}};
  }
  const auto total_ns = static_cast<std::uint64_t>((o.warmup + o.duration) * 1e9);
  std::vector<std::unique_ptr<Publisher>> publishers;
  if (!generator) publishers = start_publishers(o, sut, pool, now_ns() + total_ns + kNsPerSec);
  wait_with_progress(o.common, now_ns() + static_cast<std::uint64_t>(o.warmup * 1e9), [] { return std::string("warm-up"); });
  const Snapshot first = snapshot(pool, publishers, sut);
  pool.record_latency_from(first.at);
  wait_with_progress(o.common, first.at + static_cast<std::uint64_t>(o.duration * 1e9), [&] {
    const Snapshot now = snapshot(pool, publishers, sut);
    return std::to_string((now.events - first.events) * kNsPerSec / std::max<std::uint64_t>(1, now.at - first.at)) +
           " events/s delivered";
  });
  const Snapshot last = snapshot(pool, publishers, sut);
  std::uint64_t refused = 0;
  std::string publish_error;
  for (auto& p : publishers) {
    p->stop();
    refused += p->counters().refused.load();
    if (publish_error.empty()) publish_error = p->error();
  }
  pool.stop();
  const double seconds = static_cast<double>(last.at - first.at) / 1e9;
  nlohmann::json r = {{"events_per_s", static_cast<double>(last.events - first.events) / seconds},
                      {"bytes_per_s", static_cast<double>(last.bytes - first.bytes) / seconds},
                      {"published_per_s", static_cast<double>(last.published - first.published) / seconds},
                      {"publish_refused", refused},
                      {"gaps", pool.counters().gaps.load()},
                      {"streams_with_gaps", pool.counters().gapped.load()},
                      {"streams_closed_after_gap", pool.counters().closed_after_gap.load()},
                      {"order_errors", pool.counters().order_errors.load()},
                      {"streams_closed", pool.counters().closed.load()},
                      {"streams_failed", pool.counters().failed.load()},
                      {"own_events", generator}};
  put_latency(r, "latency", pool.latency());
  put_client_cpu(r, first, last, seconds);
  if (const std::int64_t rss = process_rss_bytes(sut.pid); rss >= 0) r["server_rss_bytes"] = rss;
  // The server's CPU per delivered event: far steadier than events/s when
  // other work shares the machine (a server waiting for its core is slow,
  // not costly).
  if (first.server_cpu_s >= 0 && last.server_cpu_s >= 0 && last.events > first.events) {
    const double cpu = last.server_cpu_s - first.server_cpu_s;
    r["server_cpu_cores"] = cpu / seconds;
    r["server_cpu_ns_per_event"] = cpu * 1e9 / static_cast<double>(last.events - first.events);
  }
  if (!publish_error.empty()) r["error"] = "publisher: " + publish_error;
  return r;
}

}  // namespace

void add_fanout(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<FanoutOptions>();
  CLI::App* cmd = app.add_subcommand("fanout", "P publishers, N subscribers: delivered events/s, bytes/s, latency");
  add_common_options(*cmd, o->common, {.tls = true, .h2_streams = kMostStreamsPerConnection});
  cmd->add_option("-n,--subscribers", o->subscribers, "subscribers")->capture_default_str();
  cmd->add_option("-p,--publishers", o->publishers, "publishing connections")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option("-s,--size", o->size, "payload bytes (>= 32, the stamp and sequence)")->capture_default_str();
  add_proto_option(*cmd, o->proto);
  add_publish_option(*cmd, o->publish);
  cmd->add_option("-r,--rate", o->rate, "events/s in total; 0: as fast as the server takes them")->capture_default_str();
  cmd->add_option("-d,--duration", o->duration, "seconds measured")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "seconds before measuring")->capture_default_str();
  cmd->add_option("-t,--threads", o->threads, "client threads")->capture_default_str();
  cmd->add_option("--pipeline", o->pipeline, "POSTs per write")->capture_default_str();
  cmd->add_option("--window", o->window, "unanswered POSTs per publisher at most")->capture_default_str();
  cmd->add_option("--ahead", o->ahead, "--publish ws flat out: events a publisher may run ahead of its readers")
      ->capture_default_str();
  cmd->add_option("--latency-every", o->latency_every,
                  "sample the latency of one new stamp (a publisher's batch) in this many")->capture_default_str();
  // One box plays every subscriber's machine: their receive buffers share
  // the kernel's TCP memory (net.ipv4.tcp_mem), which thousands of
  // autotuned buffers can exhaust, where real subscribers each have their
  // own. A fixed buffer keeps the sum within it.
  cmd->add_option("--rcvbuf", o->receive_buffer, "each subscriber's SO_RCVBUF bytes; 0: kernel default (autotuned)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--sources", o->sources,
                  "connect from 127.0.0.1..127.0.0.N in turn (past one address's ports); 0: one address")
      ->capture_default_str()->check(CLI::Range(0, 254));
  cmd->add_option("--token", o->token,
                  "a token (`sluice token`) every subscriber (over HTTP/1.1 or HTTP/2) and publisher presents as ?token=, "
                  "for auth.mode=jwt");
  cmd->callback([o, &exit_code] {
    // Subscribers over HTTP/2 read SSE, K streams to each connection.
    for (const ServerSpec& s : servers_of(o->common)) {
      if (s.http != HttpVersion::h2) continue;
      if (o->proto != Proto::sse) throw CLI::ValidationError(s.name, "subscribers over HTTP/2 read SSE (--proto sse)");
      if (o->subscribers % s.streams_per_connection != 0) {
        throw CLI::ValidationError(s.name, std::to_string(s.streams_per_connection) +
                                               " streams per connection must divide --subscribers (" +
                                               std::to_string(o->subscribers) + ")");
      }
    }
    o->fds = raise_fd_limit(fds_wanted(*o));
    const ReportSpec spec{.scenario = "fanout", .headline = "events_per_s", .columns = {
        {"events_per_s", "events/s", 1e6, 3}, {"bytes_per_s", "MB/s", 1e6, 1}, {"published_per_s", "pub/s", 1e3, 1},
        {"latency_p50_us", "p50 us"}, {"latency_p99_us", "p99 us"}, {"latency_p999_us", "p99.9 us"},
        {"latency_max_us", "max us"}, {"gaps", "gaps", 1, 0}, {"streams_with_gaps", "gap streams", 1, 0},
        {"streams_closed", "closed", 1, 0}, {"streams_closed_after_gap", "closed after gap", 1, 0},
        {"publish_refused", "refused", 1, 0}, {"order_errors", "order err", 1, 0},
        {"server_cpu_cores", "cpu", 1, 2}, {"server_cpu_ns_per_event", "cpu ns/ev", 1, 1},
        {"client_reader_cpu_cores", "client reader cpu", 1, 2}, {"client_cpu_cores", "client cpu", 1, 2},
        {"client_reader_ns_per_event", "client ns/ev", 1, 1}, {"client_limit", "client limit"}},
        .cost = "server_cpu_ns_per_event"};
    const nlohmann::json options = {{"subscribers", o->subscribers}, {"publishers", o->publishers}, {"size", o->size},
                                    {"rate", o->rate}, {"duration_s", o->duration}, {"threads", o->threads},
                                    {"pipeline", o->pipeline}, {"proto", proto_name(o->proto)},
                                    {"publish", publish_mode_name(o->publish)}, {"sources", o->sources},
                                    {"rcvbuf", o->receive_buffer},
                                    {"h2c", o->common.h2c},
                                    {"streams_per_connection", o->common.h2c ? o->common.streams_per_connection : 1},
                                    {"rounds", o->common.rounds}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); },
                             [o](const nlohmann::json& results) {
                               std::vector<Bar> bars;
                               for (const auto& r : results) bars.push_back({r["server"], r.value("events_per_s", 0.0)});
                               return bar_chart("fanout (" + proto_name(o->proto) + ", publish " +
                                                    publish_mode_name(o->publish) + "): delivered events/s",
                                                "events/s", bars);
                             });
  });
}

}  // namespace sluice::bench
