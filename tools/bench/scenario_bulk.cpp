// bulk: one stream as fast as the server can push it (big events, one
// subscriber, publishers flat out), next to iperf3 on loopback in the same
// run: the server's delivered bytes/s as a fraction of raw TCP's. The
// publishers stay at most --ahead bytes ahead of the reader: flat out, but
// never so far ahead that the server's slow-consumer policy cuts the stream.
#include <memory>

#include "client_pool.hpp"
#include "clock.hpp"
#include "iperf.hpp"
#include "publisher.hpp"
#include "runner.hpp"
#include "scenarios.hpp"

namespace sluice::bench {

namespace {

struct BulkOptions {
  CommonOptions common;
  std::size_t size = 16384;
  std::size_t publishers = 1;
  std::size_t ahead_bytes = 512 * 1024;  // published but not yet read, at most
  double duration = 5;
  bool iperf = true;
};

nlohmann::json measure(const BulkOptions& o, const ServerUnderTest& sut, double tcp_bytes_per_s) {
  const std::string topic = "bulk-" + std::to_string(now_ns() % 1000000);
  ClientPool pool({.session = {.server = sut.endpoint, .path = "/sse/" + topic}, .sessions = 1, .latency_every = 64});
  pool.start();
  if (!pool.wait_ready(now_ns() + 10 * kNsPerSec)) return {{"error", "subscriber did not connect"}};
  const std::uint64_t deadline = now_ns() + static_cast<std::uint64_t>(o.duration * 1e9);
  std::vector<std::unique_ptr<Publisher>> publishers;
  for (std::size_t i = 0; i < o.publishers; ++i) {
    publishers.push_back(std::make_unique<Publisher>(
        PublisherOptions{.server = sut.direct, .topic = topic, .size = o.size, .pipeline = 8, .window = 32,
                         .delivered = &pool.counters().events, .max_ahead = o.ahead_bytes / o.size,
                         // 512 KiB drain in a third of a millisecond at loopback speed
                         .ahead_poll_ns = 100 * kNsPerUs}));
    publishers.back()->start(deadline);
  }
  const std::uint64_t start = now_ns();
  const std::uint64_t bytes_before = pool.counters().bytes.load();
  wait_with_progress(o.common, deadline, [&] { return std::to_string(pool.counters().bytes.load() >> 20) + " MiB"; });
  const double seconds = static_cast<double>(now_ns() - start) / 1e9;
  const double bytes_per_s = static_cast<double>(pool.counters().bytes.load() - bytes_before) / seconds;
  nlohmann::json r = {{"bytes_per_s", bytes_per_s}, {"gaps", pool.counters().gaps.load()},
                      {"streams_closed", pool.counters().closed.load()}};
  std::uint64_t refused = 0;
  for (auto& p : publishers) {
    p->stop();
    refused += p->counters().refused.load();
    if (!p->error().empty()) r["publisher_error"] = p->error();
  }
  r["publish_refused"] = refused;
  pool.stop();
  put_latency(r, "latency", pool.latency());
  if (tcp_bytes_per_s > 0) {
    r["tcp_bytes_per_s"] = tcp_bytes_per_s;
    r["fraction_of_tcp"] = bytes_per_s / tcp_bytes_per_s;
  }
  return r;
}

}  // namespace

void add_bulk(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BulkOptions>();
  CLI::App* cmd = app.add_subcommand("bulk", "one stream flat out, as a fraction of iperf3's raw TCP on loopback");
  add_common_options(*cmd, o->common);
  cmd->add_option("-s,--size", o->size, "payload bytes")->capture_default_str();
  cmd->add_option("-p,--publishers", o->publishers, "publishing connections")->capture_default_str();
  cmd->add_option("--ahead", o->ahead_bytes, "bytes published but not yet read, at most")->capture_default_str();
  cmd->add_option("-d,--duration", o->duration, "seconds")->capture_default_str();
  cmd->add_flag("!--no-iperf", o->iperf, "skip the iperf3 reference");
  cmd->callback([o, &exit_code] {
    IperfResult tcp;
    if (o->iperf) tcp = run_iperf3(o->duration);
    if (!tcp.error.empty()) std::fprintf(stderr, "bulk: %s\n", tcp.error.c_str());
    const ReportSpec spec{.scenario = "bulk", .headline = "bytes_per_s", .columns = {
        {"bytes_per_s", "MB/s", 1e6, 1}, {"tcp_bytes_per_s", "tcp MB/s", 1e6, 1},
        {"fraction_of_tcp", "of tcp", 1, 3}, {"latency_p99_us", "p99 us"}}};
    const nlohmann::json options = {{"size", o->size}, {"publishers", o->publishers}, {"duration_s", o->duration}};
    exit_code = run_scenario(o->common, spec, options,
                             [o, tcp](const ServerUnderTest& sut) { return measure(*o, sut, tcp.bytes_per_s); },
                             [tcp](const nlohmann::json& results) {
                               std::vector<Bar> bars;
                               if (tcp.bytes_per_s > 0) bars.push_back({"iperf3 tcp", tcp.bytes_per_s / 1e6});
                               for (const auto& r : results) bars.push_back({r["server"], r.value("bytes_per_s", 0.0) / 1e6});
                               return bar_chart("bulk: one stream", "MB/s", bars);
                             });
  });
}

}  // namespace sluice::bench
