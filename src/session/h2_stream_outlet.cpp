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
  gate_.reset();  // its backlog reads the engine's stream, now gone
}

bool H2StreamOutlet::bound_unread(const conn::LatencyGateSettings& settings, conn::GateChecks& checks,
                                  conn::GateFrames frames) {
  if (gate_tried_ || closed()) return gate_ != nullptr;
  gate_tried_ = true;
  std::unique_ptr<conn::BacklogSource> source = carrier_.watch_stream(stream_, settings.padding_per_second);
  if (source == nullptr) return false;
  gate_ = conn::LatencyGate::make(std::move(source), settings, checks, *this, std::move(frames), loop().now());
  // Every HTTP/2 client answers a PING once it has read the frames before
  // it: SSE and WebSocket streams alike can be asked what they have read.
  if (gate_) gate_->ask_receipts(static_cast<conn::ReceiptAsker&>(*this), &carrier_.answer_inbox());
  return gate_ != nullptr;
}

bool H2StreamOutlet::ask_receipt() {
  receipt_ping_ = carrier_.ask_reader();
  return receipt_ping_ != 0;
}

void H2StreamOutlet::pings_answered(std::uint64_t answered, io::Loop::Clock::time_point arrived) {
  if (receipt_ping_ == 0 || receipt_ping_ > answered || !gate_) return;
  receipt_ping_ = 0;
  gate_->receipt(arrived);
  // What the gate held for the answer may go now.
  if (gate_->holding()) want_flush();
}

// Planned before the streams add what waits for a flush that holds no
// data back (a notice of drops, see data_held()), as a connection's gate
// is; what they add is control, so the data counted here is what the
// flush starts from.
conn::DataAllowance H2StreamOutlet::plan_flush(io::Loop::Clock::time_point now, std::uint64_t sent) {
  planned_ = gate_ != nullptr && !ended();
  const conn::DataAllowance allowance = planned_ ? gate_->plan(now, queue()) : conn::DataAllowance{};
  set_data_held(planned_ && gate_->holding());
  awaits_answer_ = allowance.awaits_answer;
  sent_before_ = sent;
  data_before_ = queue().data_bytes();
  return allowance;
}

void H2StreamOutlet::end_round(conn::FlushStatus status, bool held) {
  queue().end_round(planned_ && awaits_answer_ && held && status != conn::FlushStatus::blocked);
}

void H2StreamOutlet::flushed(io::Loop::Clock::time_point now, conn::FlushStatus status, std::uint64_t sent,
                             bool held) {
  if (!std::exchange(planned_, false) || gate_ == nullptr) return;
  conn::FlushResult result{status};
  if (status != conn::FlushStatus::error && status != conn::FlushStatus::blocked) {
    result.status = held ? conn::FlushStatus::held : conn::FlushStatus::drained;
  }
  result.bytes = static_cast<std::size_t>(sent > sent_before_ ? sent - sent_before_ : 0);
  const std::size_t data_after = queue().data_bytes();
  gate_->flushed(now, result, data_before_ > data_after ? data_before_ - data_after : 0);
}

}  // namespace sluice::session
