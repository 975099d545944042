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
  if (!outlet.bound_unread(settings_, checks_, {.probe = probe_frame(probe),
                                                    .padding = padding_frame(probe, kPaddingBytes),
                                                    .wide_padding = padding_frame(probe, kWidePaddingBytes)})) {
    return report_unbounded();
  }
  // A WebSocket client answers a ping only after every frame before it:
  // its pong is a read receipt. SSE has no way back.
  if (probe == Probe::ws) outlet.ask_read_receipts(receipt_ask());
}

const buf::FrameRef& LatestWindow::receipt_ask() {
  if (!ws_ask_) ws_ask_ = proto::ws::make_ping_frame(pool_, std::span<const char>(kReadReceiptPayload.data(), kReadReceiptPayload.size()));
  return ws_ask_;
}

// SSE: a blank line between events dispatches nothing. WebSocket: an empty
// ping, which the client answers with a pong and its application never sees.
const buf::FrameRef& LatestWindow::probe_frame(Probe probe) {
  buf::FrameRef& frame = probe == Probe::sse ? sse_probe_ : ws_probe_;
  if (!frame) {
    frame = probe == Probe::sse ? buf::make_frame(pool_, buf::Lane::control, "\n")
                                : proto::ws::make_ping_frame(pool_, {});
  }
  return frame;
}

// SSE: comment lines. WebSocket: unsolicited pongs. `bytes` or a little
// more; the client's application sees neither.
const buf::FrameRef& LatestWindow::padding_frame(Probe probe, std::size_t bytes) {
  const bool wide = bytes > kPaddingBytes;
  buf::FrameRef& frame = probe == Probe::sse ? (wide ? sse_wide_padding_ : sse_padding_)
                                             : (wide ? ws_wide_padding_ : ws_padding_);
  if (!frame) {
    frame = probe == Probe::sse ? proto::sse::make_padding_frame(pool_, buf::Lane::control, bytes)
                                : proto::ws::make_pong_padding_frame(pool_, bytes);
  }
  return frame;
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
