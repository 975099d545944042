// Owns: LatestWindow, what one loop needs to bound the frames between
// sluice and the reader of a `latest` subscription (conn/latency_gate.hpp):
// the configured window, the loop's GateChecks, the probe and padding
// frames (one GateFrames per protocol, shared by every stream, made on
// first use), the count of the padding queued (latest_padding_bytes), and
// the reports of a stream it cannot hold to the window: when the kernel
// cannot estimate its reader's backlog (another OS, lwIP), or when the
// reader's window moves in steps too large to show its frames and the
// stream cannot ask the reader instead (SSE over HTTP/1.1). Each is
// counted, and said in one line on stderr the first time in the process.
//
// Under `latest` a frame replaced in sluice's queue costs nothing, but one
// already in a kernel queue cannot be replaced: without the bound, a slow
// reader behind a 4 KiB receive buffer and sluice's own unsent bytes reads
// frames a second old, though each is the newest sluice had when it wrote.
#pragma once

#include <cstdint>
#include <string_view>

#include "buf/pool.hpp"
#include "conn/gate_checks.hpp"
#include "conn/latency_gate.hpp"
#include "conn/outlet.hpp"
#include "io/loop.hpp"
#include "metrics/loop_metrics.hpp"
#include "session/counters.hpp"
#include "sluice/config.hpp"

namespace sluice::session {

// The payload of the ping a WebSocket reader's latency gate asks with
// (conn/latency_gate.hpp): a pong that carries it is the gate's answer, any
// other pong is not.
inline constexpr std::string_view kReadReceiptPayload = "sluice-read";

class LatestWindow final : public conn::GateReport {
 public:
  enum class Probe : std::uint8_t { sse, ws };

  // policy.latest_window_frames 0: no bound.
  LatestWindow(const server::PolicyConfig& policy, buf::Pool& pool, io::Loop& loop, LoopCounters& counters,
               metrics::LoopMetrics& metrics);
  LatestWindow(const LatestWindow&) = delete;
  LatestWindow& operator=(const LatestWindow&) = delete;

  [[nodiscard]] bool enabled() const { return settings_.window_frames > 0; }
  // On the loop's thread (a reload): the window and padding rate the next
  // bound() gives. A stream already bound keeps what it was given.
  void configure(const server::PolicyConfig& policy);
  // Bounds `outlet` (once per outlet; later calls change nothing). When it
  // cannot be, the stream delivers as it would without the bound, and that
  // is counted (latest_unbounded) and said once.
  void bound(conn::Outlet& outlet, Probe probe);

  void window_cannot_show_frames() override;
  void padded(std::size_t bytes) override;

 private:
  static constexpr std::size_t kPaddingBytes = 512;
  static constexpr std::size_t kWidePaddingBytes = 8192;

  const conn::GateFrames& gate_frames(Probe probe);
  const buf::FrameRef& receipt_ask();
  void report_unbounded();

  conn::LatencyGateSettings settings_;
  buf::Pool& pool_;
  LoopCounters& counters_;
  metrics::LoopMetrics& metrics_;
  conn::GateChecks checks_;
  conn::GateFrames sse_frames_;
  conn::GateFrames ws_frames_;
  buf::FrameRef ws_ask_;
};

}  // namespace sluice::session
