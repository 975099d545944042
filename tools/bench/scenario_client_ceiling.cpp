// client-ceiling: how fast the bench client itself reads, with no server
// and no socket: prebuilt streams of bench events (WebSocket frames, SSE
// events without ids as the speed-of-light server sends them, and SSE
// events with sluiced's "id: EPOCH:SEQ" lines) handed to the same scanner
// and the same per-event work (StreamTally) a session runs, each slice of
// one read's size first copied into the thread's read buffer as recv()
// would. Its events/s, per second of this thread's CPU time, is the most
// the client could count on one core without the system call and the
// kernel's own work per byte; the fan-out rows give the rest (the client's
// CPU next to what it read).
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "clock.hpp"
#include "histogram.hpp"
#include "reader_context.hpp"
#include "scenarios.hpp"
#include "sse_scanner.hpp"
#include "stamp.hpp"
#include "stream_tally.hpp"
#include "ws_frame_scanner.hpp"

namespace sluice::bench {

namespace {

struct CeilingOptions {
  std::size_t size = 64;
  double duration = 1;       // seconds per form
  std::size_t events = 16384;  // events in the prebuilt stream
  std::size_t batch = 64;      // events sharing a stamp, as a publisher's batch does
  bool json = false;
};

enum class Form { ws, sse, sse_ids };

std::string form_name(Form form) { return form == Form::ws ? "ws" : form == Form::sse ? "sse" : "sse-ids"; }

std::string build_stream(const CeilingOptions& o, Form form) {
  std::string out;
  for (std::size_t i = 0; i < o.events; ++i) {
    const std::string payload = make_payload(o.size, 1'000'000 + i / o.batch, 0, i + 1);
    if (form == Form::ws) {
      out += '\x81';
      out += static_cast<char>(payload.size());  // < 126: -s is capped
    } else if (form == Form::sse_ids) {
      out += "id: 1700000000000:" + std::to_string(i + 1) + "\n";
    }
    out += form == Form::ws ? payload : "data: " + payload + "\n\n";
  }
  return out;
}

class Reader final : private WsFrameHandler, private SseHandler {
 public:
  explicit Reader(ReaderContext& context) : context_(context) {}

  // Feeds `stream` through the read buffer; false on a scan error.
  bool pass(std::string_view stream, Form form) {
    tally_ = StreamTally();
    WsFrameScanner ws;
    SseScanner sse(std::size_t{1} << 20, false);
    for (std::size_t at = 0; at < stream.size(); at += context_.buffer.size()) {
      const std::size_t n = std::min(context_.buffer.size(), stream.size() - at);
      std::memcpy(context_.buffer.data(), stream.data() + at, n);
      const std::string_view slice(context_.buffer.data(), n);
      const bool ok = form == Form::ws ? ws.feed(slice, *this) == WsScanStatus::ok
                                       : sse.feed(slice, *this) == ScanStatus::ok;
      if (!ok) return false;
    }
    return true;
  }
  [[nodiscard]] std::uint64_t events() const { return tally_.events; }

 private:
  void on_message(bool, std::string_view payload) override { static_cast<void>(tally_.take(context_, payload, now_)); }
  void on_ping(std::string_view) override {}
  void on_close(std::uint16_t, std::string_view) override {}
  void on_event(const SseEvent& event) override { static_cast<void>(tally_.take(context_, event.data, now_)); }

  ReaderContext& context_;
  StreamTally tally_;
  std::uint64_t now_ = 2'000'000;
};

// CPU seconds this thread has run: the rate is per second of the core's
// time, so that a machine busy with other work does not lower it.
double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

nlohmann::json measure(const CeilingOptions& o, Form form) {
  const std::string stream = build_stream(o, form);
  StreamCounters counters;
  ReaderContext context(counters);
  Reader reader(context);
  std::uint64_t events = 0;
  const double cpu_start = thread_cpu_seconds();
  const std::uint64_t start = now_ns();
  const auto until = start + static_cast<std::uint64_t>(o.duration * 1e9);
  // Bounded by count as well as by time.
  for (int pass = 0; pass < 1'000'000 && now_ns() < until; ++pass) {
    if (!reader.pass(stream, form)) return {{"form", form_name(form)}, {"error", "scan failed"}};
    events += reader.events();
  }
  const double wall = static_cast<double>(now_ns() - start) / 1e9;
  const double seconds = thread_cpu_seconds() - cpu_start;
  return {{"form", form_name(form)},
          {"events_per_s", static_cast<double>(events) / seconds},
          {"events_per_wall_s", static_cast<double>(events) / wall},
          {"cpu_share", seconds / wall},
          {"ns_per_event", seconds * 1e9 / static_cast<double>(events)},
          {"bytes_per_s", static_cast<double>(events) * static_cast<double>(stream.size()) /
                              static_cast<double>(o.events) / seconds},
          {"gaps", counters.gaps.load()},
          {"latency_samples", context.latency.count()}};
}

}  // namespace

void add_client_ceiling(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CeilingOptions>();
  CLI::App* cmd = app.add_subcommand("client-ceiling", "the client's own parsing rate, in memory, on one core");
  cmd->add_option("-s,--size", o->size, "payload bytes")->capture_default_str()->check(CLI::Range(32, 125));
  cmd->add_option("-d,--duration", o->duration, "seconds per stream form")->capture_default_str()->check(CLI::Range(0.1, 60.0));
  cmd->add_flag("--json", o->json, "print JSON on stdout");
  cmd->callback([o, &exit_code] {
    nlohmann::json results = nlohmann::json::array();
    for (const Form form : {Form::ws, Form::sse, Form::sse_ids}) {
      results.push_back(measure(*o, form));
      const nlohmann::json& r = results.back();
      if (r.contains("error")) {
        exit_code = 1;
        continue;
      }
      std::fprintf(o->json ? stderr : stdout,
                   "%-8s %8.2f M events per CPU second  %6.2f ns/event  %7.0f MB/s  (had %.2f of the core)\n",
                   form_name(form).c_str(), r["events_per_s"].get<double>() / 1e6, r["ns_per_event"].get<double>(),
                   r["bytes_per_s"].get<double>() / 1e6, r["cpu_share"].get<double>());
    }
    if (o->json) std::printf("%s\n", nlohmann::json{{"scenario", "client-ceiling"}, {"results", results}}.dump(2).c_str());
  });
}

}  // namespace sluice::bench
