// Owns: H2StreamOutlet, the outlet of one HTTP/2 stream that a stream type
// (an SSE stream, a WebSocket stream) writes to as it would to a whole
// connection. Its queue is
// the engine's queue for the stream, whose bytes leave as the stream's DATA
// frames; "flush" tells the engine the stream has bytes and has the
// connection flush; "close after flush" ends the stream (END_STREAM once
// its queue has drained), "close now" resets it.
//
// A stream whose flow-control window the client keeps shut holds its bytes
// in this queue, where its subscriber's policy acts on them as on a slow
// TCP subscriber; the connection and its other streams go on. A stream that
// was to end and cannot (its window stays shut) is reset by the connection
// at the linger deadline (closing_since()).
//
// Under `latest` the outlet may carry a latency gate (bound_unread()), as
// a whole HTTP/1.1 connection does: before each flush of the connection
// the gate says how much of the stream's data may start (plan_flush(),
// which the connection hands the engine), and after it learns what went
// (flushed()); while it holds data back, it has the stream flushed again
// when its reader may have read.
#pragma once

#include <cstdint>
#include <memory>

#include "conn/latency_gate.hpp"
#include "conn/outlet.hpp"
#include "conn/peer_backlog.hpp"
#include "io/loop.hpp"

namespace sluice::session {

// What an HTTP/2 stream's outlet asks of the connection carrying it.
class H2StreamCarrier {
 public:
  // Bytes were queued on `stream`: make DATA frames of them.
  virtual void stream_output(std::int32_t stream) = 0;
  // END_STREAM once the stream's queue has drained.
  virtual void end_stream(std::int32_t stream) = 0;
  // RST_STREAM with `error_code`.
  virtual void reset_stream(std::int32_t stream, std::uint32_t error_code) = 0;
  // The stream may read again what it left buffered (a WebSocket stream
  // whose held message went out).
  virtual void resume_input(std::int32_t stream) = 0;
  // What the stream's reader has not read of its bytes from now on
  // (session/h2_stream_backlog.hpp); null when that cannot be told. The
  // connection's first watched stream sets the padding budget all its
  // streams share (`padding_per_second`).
  virtual std::unique_ptr<conn::BacklogSource> watch_stream(std::int32_t stream, std::size_t padding_per_second) = 0;
  // Sends a PING (transport::H2Session::ask_ack) and returns the number of
  // the one whose answer says the reader has read what was sent so far.
  virtual std::uint64_t ask_reader() = 0;
  // Where the answers to those PINGs come in (the connection's input).
  virtual conn::AnswerInbox& answer_inbox() = 0;

 protected:
  ~H2StreamCarrier() = default;
};

class H2StreamOutlet final : public conn::Outlet, private io::Deferred, private conn::ReceiptAsker {
 public:
  // `queue` is the engine's queue for `stream`; it must not be touched
  // once the engine has closed the stream (gone()).
  H2StreamOutlet(io::Loop& loop, conn::OutQueue& queue, H2StreamCarrier& carrier, std::int32_t stream);
  ~H2StreamOutlet();

  void close_after_flush(conn::CloseReason reason) override;
  void close_now(conn::CloseReason reason) override;
  // Has the carrier hand the stream its buffered input again, at the end
  // of this tick (not inside the stream's own call).
  void resume_input() override;

  // The engine closed the stream: nothing more is queued or sent.
  void gone();

  bool bound_unread(const conn::LatencyGateSettings& settings, conn::GateChecks& checks,
                    conn::GateFrames frames) override;
  // Before a flush of the connection, whose engine has sent `sent` bytes
  // of this stream so far: what the stream's data may start (everything,
  // without a gate or once the stream ends). May queue the gate's probe.
  [[nodiscard]] conn::DataAllowance plan_flush(io::Loop::Clock::time_point now, std::uint64_t sent);
  // After it: the engine has sent `sent` bytes of the stream in all; the
  // connection's write ended `status`; `held`: the allowance left data
  // waiting.
  void flushed(io::Loop::Clock::time_point now, conn::FlushStatus status, std::uint64_t sent, bool held);
  // The connection's round is over (before flushed()): what the stream's
  // queue holds waits for the reader, unless only the gate held it, while
  // it awaits the reader's answer (conn::DataAllowance::awaits_answer).
  void end_round(conn::FlushStatus status, bool held);
  [[nodiscard]] bool gated() const { return gate_ != nullptr; }
  // The gate bound_unread() put on the stream, or null.
  [[nodiscard]] const conn::LatencyGate* latency_gate() const { return gate_.get(); }
  // The connection's PINGs up to `answered` came back, in input that
  // reached this host at `arrived` (Connection::input_arrival): an ask of
  // the gate that one of them answers is answered.
  void pings_answered(std::uint64_t answered, io::Loop::Clock::time_point arrived);
  // When close_after_flush() was called (meaningful while closing()).
  [[nodiscard]] io::Loop::Clock::time_point closing_since() const { return closing_since_; }

 private:
  void run_deferred() override;
  bool ask_receipt() override;

  H2StreamCarrier& carrier_;
  const std::int32_t stream_;
  io::Loop::Clock::time_point closing_since_{};
  bool resume_ = false;  // resume_input() was called: the deferred run resumes
  std::unique_ptr<conn::LatencyGate> gate_;
  bool gate_tried_ = false;
  std::uint64_t receipt_ping_ = 0;  // the PING whose answer the gate's ask waits for; 0: none
  bool planned_ = false;           // the flush under way was planned by the gate
  bool awaits_answer_ = false;     // what its plan holds back waits for an answer
  std::uint64_t sent_before_ = 0;  // the stream's bytes sent when the flush was planned
  std::size_t data_before_ = 0;    // its data bytes queued then
};

}  // namespace sluice::session
