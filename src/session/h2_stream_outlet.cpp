#include "session/h2_stream_outlet.hpp"

#include <nghttp2/nghttp2.h>

#include <utility>

namespace sluice::session {

H2StreamOutlet::H2StreamOutlet(io::Loop& loop, conn::OutQueue& queue, H2StreamCarrier& carrier, std::int32_t stream)
    : Outlet(loop, queue, *this), carrier_(carrier), stream_(stream) {}

H2StreamOutlet::~H2StreamOutlet() { loop().forget(this); }

// Deferred to the end of the tick like a connection's flush, so that many
// events queued in one tick become DATA frames together.
void H2StreamOutlet::run_deferred() {
  if (closed()) return;
  if (std::exchange(resume_, false)) carrier_.resume_input(stream_);
  if (!closed()) carrier_.stream_output(stream_);
}

void H2StreamOutlet::resume_input() {
  resume_ = true;
  loop().defer(this);
}

void H2StreamOutlet::close_after_flush(conn::CloseReason) {
  if (ended()) return;
  set_closing();
  closing_since_ = loop().now();
  carrier_.end_stream(stream_);
}

// A stream ended at once has nothing more to say: CANCEL, or
// INTERNAL_ERROR when the server failed it (no memory for its head).
void H2StreamOutlet::close_now(conn::CloseReason reason) {
  if (closed()) return;
  set_closed();
  loop().forget(this);
  carrier_.reset_stream(stream_, reason == conn::CloseReason::io_error ? NGHTTP2_INTERNAL_ERROR : NGHTTP2_CANCEL);
}

void H2StreamOutlet::gone() {
  set_closed();
  loop().forget(this);
}

}  // namespace sluice::session
