#include "session/latest_window.hpp"

#include <atomic>
#include <cstdio>

#include "proto/ws_encoder.hpp"

namespace sluice::session {

namespace {
std::atomic<bool> g_unbounded_reported{false};
}  // namespace

LatestWindow::LatestWindow(std::int64_t window_frames, buf::Pool& pool, io::Loop& loop, LoopCounters& counters)
    : pool_(pool), counters_(counters), checks_(loop) {
  set_window(window_frames);
}

void LatestWindow::set_window(std::int64_t window_frames) {
  settings_.window_frames = window_frames > 0 ? static_cast<std::size_t>(window_frames) : 0;
}

void LatestWindow::bound(conn::Outlet& outlet, Probe probe) {
  if (!enabled()) return;
  if (!outlet.bound_unread(settings_, checks_, probe_frame(probe))) return report_unbounded();
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

void LatestWindow::report_unbounded() {
  ++counters_.latest_unbounded;
  if (g_unbounded_reported.exchange(true)) return;
  std::fprintf(stderr,
               "sluiced: a latest subscription goes without policy.latest_window_frames (counted in "
               "latest_unbounded): it is on a connection whose kernel does not tell what its reader has not read "
               "(TCP_INFO with the peer's window, SIOCOUTQ)\n");
}

}  // namespace sluice::session
