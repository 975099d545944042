// slow-consumer: frames of S bytes published at F/s to one reader
// that drains R events/s, R < F. A server that lets the kernel queue grow
// shows an event age that climbs for the whole run (from 100 ms to 17 s
// on a device measured this way); one that keeps the kernel queue shallow
// and applies a policy shows a bounded age, with drops (id gaps) or a
// disconnect instead. The policy is
// the server's: run one --server per policy to compare them. The reader
// speaks SSE or WebSocket (--proto; a fifo WebSocket is cut off with close
// 1008), either over HTTP/2 by prior knowledge too (a server named
// NAME@h2c, or every server under --h2c; WebSocket: extended CONNECT),
// and over TLS (--tls-server NAME=..., NAME@h2 for HTTP/2 chosen by ALPN),
// the publisher POSTs or sends WebSocket frames (--publish), over TLS too
// to a TLS server. Through --link mode=packet the reader and the server
// are in the two network namespaces of the packet link, and the publisher
// with the server, off the link.
#include <memory>

#include "clock.hpp"
#include "paced_reader.hpp"
#include "publisher.hpp"
#include "runner.hpp"
#include "scenarios.hpp"

namespace sluice::bench {

namespace {

struct SlowOptions {
  CommonOptions common;
  std::size_t size = 1024;
  double rate = 100;        // frames/s published
  double drain = 20;        // events/s read
  double duration = 10;
  int receive_buffer = 0;   // the reader's SO_RCVBUF; 0: kernel default
  Proto proto = Proto::sse;
  PublishMode publish = PublishMode::post;
};

nlohmann::json summarize(const PacedReader& reader) {
  nlohmann::json series = nlohmann::json::array();
  double last_max = 0;
  std::uint64_t gaps = 0;
  for (const AgeSlot& s : reader.slots()) {
    series.push_back({{"t", s.t}, {"events", s.events}, {"gaps", s.gaps}, {"age_mean_ms", s.mean_ms}, {"age_max_ms", s.max_ms}});
    if (s.events > 0) last_max = s.max_ms;
    gaps += s.gaps;
  }
  return {{"events_read", reader.events()}, {"gaps", gaps}, {"notices", reader.notices()},
          {"order_errors", reader.order_errors()},
          {"closed_by_server", reader.closed_by_server()}, {"final_age_ms", last_max}, {"series", series}};
}

nlohmann::json measure(const SlowOptions& o, const ServerUnderTest& sut) {
  const std::string topic = "slow-" + std::to_string(now_ns() % 1000000);
  PacedReader reader({.server = sut.endpoint, .path = stream_path(o.proto, topic), .proto = o.proto, .drain_rate = o.drain,
                      .receive_buffer = o.receive_buffer, .h2c = sut.http == HttpVersion::h2,
                      .tls = sut.tls});
  // Under --link mode=packet the reader's socket is made on the far side of
  // the link, and the publisher's thread (which dials) on the server's.
  InNamespace on_reader_side(sut.client_net);
  if (sut.client_net != nullptr && !on_reader_side.entered()) return {{"error", "cannot enter the readers' namespace"}};
  if (!reader.start()) return {{"error", reader.error()}};
  on_reader_side.leave();
  const std::uint64_t deadline = now_ns() + static_cast<std::uint64_t>(o.duration * 1e9);
  Publisher publisher(
      {.server = sut.direct, .topic = topic, .mode = o.publish, .tls = sut.tls, .size = o.size, .rate = o.rate, .pipeline = 1, .window = 16});
  InNamespace on_server_side(sut.server_net);
  if (sut.server_net != nullptr && !on_server_side.entered()) return {{"error", "cannot enter the server's namespace"}};
  publisher.start(deadline);
  on_server_side.leave();
  wait_with_progress(o.common, deadline, [&] { return std::to_string(publisher.counters().accepted.load()) + " published"; });
  publisher.stop();
  reader.stop();
  nlohmann::json r = summarize(reader);
  r["published"] = publisher.counters().accepted.load();
  if (!reader.error().empty()) r["error"] = reader.error();
  if (!publisher.error().empty()) r["error"] = "publisher: " + publisher.error();
  return r;
}

}  // namespace

void add_slow_consumer(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SlowOptions>();
  CLI::App* cmd = app.add_subcommand("slow-consumer", "F frames/s to a reader draining R/s; event age over time");
  add_common_options(*cmd, o->common, {.tls = true, .h2_streams = 1, .packet_link = true});
  cmd->add_option("-s,--size", o->size, "frame payload bytes")->capture_default_str();
  cmd->add_option("-f,--rate", o->rate, "frames/s published")->capture_default_str();
  cmd->add_option("-R,--drain", o->drain, "events/s the reader drains")->capture_default_str();
  cmd->add_option("-d,--duration", o->duration, "seconds")->capture_default_str();
  cmd->add_option("--rcvbuf", o->receive_buffer, "reader's SO_RCVBUF bytes; 0: kernel default")->capture_default_str();
  add_proto_option(*cmd, o->proto);
  add_publish_option(*cmd, o->publish);
  cmd->callback([o, &exit_code] {
    const ReportSpec spec{.scenario = "slow-consumer", .headline = "final_age_ms", .higher_is_better = false, .columns = {
        {"published", "published", 1, 0}, {"events_read", "read", 1, 0}, {"gaps", "dropped", 1, 0},
        {"notices", "notices", 1, 0}, {"final_age_ms", "final age ms", 1, 0}}};
    const nlohmann::json options = {{"size", o->size}, {"rate", o->rate}, {"drain", o->drain},
                                    {"duration_s", o->duration}, {"rcvbuf", o->receive_buffer},
                                    {"proto", proto_name(o->proto)}, {"h2c", o->common.h2c}, {"rounds", o->common.rounds}, {"publish", publish_mode_name(o->publish)}};
    exit_code = run_scenario(o->common, spec, options, [o](const ServerUnderTest& sut) { return measure(*o, sut); },
                             [](const nlohmann::json& results) {
                               std::vector<Series> series;
                               for (const auto& r : results) {
                                 Series s{r["server"], {}};
                                 for (const auto& p : r.value("series", nlohmann::json::array())) {
                                   if (p["events"].get<int>() > 0) s.points.emplace_back(p["t"], p["age_max_ms"]);
                                 }
                                 series.push_back(s);
                               }
                               return line_chart("slow consumer: age of the newest event read", "seconds", "ms", series);
                             });
  });
}

}  // namespace sluice::bench
