// Owns: Outlet, where a stream writes its wire bytes: an OutQueue, "flush at
// the end of this tick", and the ways to end the stream. Over HTTP/1.1 the
// outlet is the connection itself; a transport that carries many streams on
// one connection (HTTP/2) gives each stream an outlet of its own and frames
// what each one's queue flushes. A stream sees only this, never the
// transport under it.
//
// The calls a delivery makes (queue(), want_flush()) are not virtual: a
// flush is a piece of the loop's deferred work, named at construction.
#pragma once

#include <cstdint>

#include "buf/frame.hpp"
#include "conn/gate_frames.hpp"
#include "conn/out_queue.hpp"
#include "io/loop.hpp"

namespace sluice::conn {

class GateChecks;
struct LatencyGateSettings;

// memory: the connection's memory account could not hold what its
// transport holds for it (a TLS record buffer).
enum class CloseReason : std::uint8_t { peer, protocol, slow_consumer, timeout, shutdown, io_error, memory };

class Outlet {
 public:
  Outlet(const Outlet&) = delete;
  Outlet& operator=(const Outlet&) = delete;

  // For slow-consumer policies, which drop and replace queued frames, and
  // for writers that queue in place; call want_flush() after queueing.
  [[nodiscard]] OutQueue& queue() { return queue_; }
  [[nodiscard]] const OutQueue& queue() const { return queue_; }

  // Queue a frame (see OutQueue) and flush at the end of this tick. A
  // closed outlet takes nothing and answers full.
  [[nodiscard]] EnqueueStatus send_data(buf::FrameRef frame);
  [[nodiscard]] EnqueueStatus send_control(buf::FrameRef frame);
  // The last frame, behind all queued data (see OutQueue::push_last).
  void send_last(buf::FrameRef frame);

  // Schedules a flush at the end of this tick.
  void want_flush() { loop_.defer(&flusher_); }

  [[nodiscard]] bool closed() const { return closed_; }
  // Closing: the rest of the queue is flushing out; nothing more is read.
  [[nodiscard]] bool closing() const { return closing_; }
  // Closed or closing: the stream has said its last.
  [[nodiscard]] bool ended() const { return closed_ || closing_; }

  // Stops reading, flushes what is queued, then closes. Sends are still
  // taken until the queue drains.
  virtual void close_after_flush(CloseReason reason) = 0;
  // Closes now; queued frames are released.
  virtual void close_now(CloseReason reason) = 0;
  // A stream that stopped consuming its input (its replies were full, or a
  // message it could not publish yet is held) takes what is buffered, then
  // reading goes on.
  virtual void resume_input() = 0;

  // Bounds the data between this outlet and its reader's application
  // (conn/latency_gate.hpp); `frames` are the stream's frames the client
  // ignores. False, changing nothing, when the transport cannot estimate
  // what its reader has not read: data then flows as without a bound.
  // Later calls answer as the first did.
  virtual bool bound_unread(const LatencyGateSettings& settings, GateChecks& checks, GateFrames frames) {
    (void)settings;
    (void)checks;
    (void)frames;
    return false;
  }
  // The reader answers `ask` (a control frame) once it has read everything
  // before it: the bound may ask it what it has read (LatencyGate::
  // ask_receipts). Nothing without a bound.
  virtual void ask_read_receipts(buf::FrameRef ask) { (void)ask; }
  // The answer to such an ask came in.
  virtual void read_receipt() {}
  // The flush under way (or the last one) holds data back for a reader
  // that has not read what it was given: what a stream adds (a notice of
  // what `latest` replaced meanwhile) may wait with that data.
  [[nodiscard]] bool data_held() const { return data_held_; }

  [[nodiscard]] io::Loop& loop() { return loop_; }

 protected:
  // `queue` (which must outlive the outlet) is where the stream's frames
  // wait; `flusher` is the deferred work that flushes it. A connection
  // owns its queue; an HTTP/2 stream's queue is the engine's, which frames
  // what it holds as the stream's DATA.
  Outlet(io::Loop& loop, OutQueue& queue, io::Deferred& flusher) : loop_(loop), flusher_(flusher), queue_(queue) {}
  ~Outlet() = default;

  void set_closing() { closing_ = true; }
  void set_closed() { closed_ = true; }
  void set_data_held(bool held) { data_held_ = held; }

 private:
  io::Loop& loop_;
  io::Deferred& flusher_;
  OutQueue& queue_;
  bool closed_ = false;
  bool closing_ = false;
  bool data_held_ = false;
};

}  // namespace sluice::conn
