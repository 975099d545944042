#include "session/latest_window.hpp"

#include <atomic>
#include <cstdio>

#include "proto/sse.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::session {

namespace {
std::atomic<bool> g_unbounded_reported{false};
std::atomic<bool> g_loose_reported{false};
}  // namespace

LatestWindow::LatestWindow(const server::PolicyConfig& policy, buf::Pool& pool, io::Loop& loop,
                           LoopCounters& counters, metrics::LoopMetrics& metrics)
    : pool_(pool), counters_(counters), metrics_(metrics), checks_(loop) {
  settings_.report = this;
  configure(policy);
}

void LatestWindow::configure(const server::PolicyConfig& policy) {
  settings_.window_frames = policy.latest_window_frames > 0 ? static_cast<std::size_t>(policy.latest_window_frames) : 0;
  settings_.padding_per_second =
      policy.latest_padding_bytes_per_s > 0 ? static_cast<std::size_t>(policy.latest_padding_bytes_per_s) : 0;
}

void LatestWindow::bound(conn::Outlet& outlet, Probe probe) {
  if (!enabled()) return;
  // Padding frames go to every stream, whatever the rate: an HTTP/2
  // stream may carry the padding its connection's budget allows (set by
  // its first stream), and the budget alone decides (conn::PeerBacklog).
  if (!outlet.bound_unread(settings_, checks_, gate_frames(probe))) return report_unbounded();
  // A WebSocket client answers a ping only after every frame before it:
  // its pong is a read receipt. SSE has no way back.
  if (probe == Probe::ws) outlet.ask_read_receipts(receipt_ask());
}

const buf::FrameRef& LatestWindow::receipt_ask() {
  if (!ws_ask_) ws_ask_ = proto::ws::make_ping_frame(pool_, std::span<const char>(kReadReceiptPayload.data(), kReadReceiptPayload.size()));
  return ws_ask_;
}

// SSE: a blank line between events dispatches nothing, and comment lines
// are skipped. WebSocket: an empty ping, which the client answers with a
// pong its application never sees, and unsolicited pongs, which it
// neither answers nor shows. A frame the pool had no room for is made at
// the next stream's bound().
const conn::GateFrames& LatestWindow::gate_frames(Probe probe) {
  const bool sse = probe == Probe::sse;
  conn::GateFrames& frames = sse ? sse_frames_ : ws_frames_;
  const auto padding = [&](std::size_t bytes) {
    return sse ? proto::sse::make_padding_frame(pool_, buf::Lane::control, bytes)
               : proto::ws::make_pong_padding_frame(pool_, bytes);
  };
  if (!frames.probe) {
    frames.probe = sse ? buf::make_frame(pool_, buf::Lane::control, "\n") : proto::ws::make_ping_frame(pool_, {});
  }
  if (!frames.padding) frames.padding = padding(kPaddingBytes);
  if (!frames.wide_padding) frames.wide_padding = padding(kWidePaddingBytes);
  return frames;
}

void LatestWindow::report_unbounded() {
  ++counters_.latest_unbounded;
  metrics_.loose(metrics::LooseBound::no_kernel_facts).add();
  if (g_unbounded_reported.exchange(true)) return;
  std::fprintf(stderr,
               "sluiced: a latest subscription goes without policy.latest_window_frames (counted in "
               "sluice_latest_streams_loosely_bound_total{why=\"no_kernel_facts\"}): it is on a connection whose kernel does not tell what its reader has not read "
               "(TCP_INFO with the peer's window, SIOCOUTQ)\n");
}

void LatestWindow::window_cannot_show_frames() {
  ++counters_.latest_loose;
  metrics_.loose(metrics::LooseBound::window_steps).add();
  if (g_loose_reported.exchange(true)) return;
  std::fprintf(stderr,
               "sluiced: a latest stream is held more loosely than policy.latest_window_frames (counted in "
               "sluice_latest_streams_loosely_bound_total{why=\"window_steps\"}): its reader's window moves in steps "
               "larger than the stream's frames, and the stream cannot ask the reader what it has read (SSE over "
               "HTTP/1.1; a WebSocket reader, and any reader over HTTP/2, is asked)\n");
}

void LatestWindow::padded(std::size_t bytes) {
  counters_.latest_padding_bytes += bytes;
  metrics_.latest_padding_bytes.add(bytes);
}

}  // namespace sluice::session
