// Owns: Connection, one accepted socket on one loop: reading into a bounded
// input buffer, the OutQueue of frames waiting to go out, flushing once per
// tick, and closing (gracefully, after the queue drains, or at once).
//
// A protocol (HTTP, SSE, WebSocket) derives from it and implements
// on_input() and on_closed(). All calls happen on the owning loop's thread.
// A closed connection stays allocated until its owner reaps it at the end
// of the tick, because ready events for it may still be in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "buf/frame.hpp"
#include "conn/out_queue.hpp"
#include "conn/writer.hpp"
#include "io/loop.hpp"

namespace sluice::conn {

struct ConnectionLimits {
  OutQueueLimits send;                   // the send budget
  std::size_t receive_budget = 1 << 20;  // input bytes held at most
  // Bytes read in one turn before the loop moves on to other sockets and
  // comes back (a client that keeps its socket full must not hold the loop).
  std::size_t receive_turn = 128 << 10;
};

enum class CloseReason : std::uint8_t { peer, protocol, slow_consumer, timeout, shutdown, io_error };

class Connection : public io::Handler, public io::Deferred {
 public:
  Connection(io::Loop& loop, int fd, const ConnectionLimits& limits);
  virtual ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Registers with the loop; returns 0 or -errno.
  int start();

  // Queue a frame and flush at the end of this tick. See OutQueue.
  [[nodiscard]] EnqueueStatus send_data(buf::FrameRef frame);
  [[nodiscard]] EnqueueStatus send_control(buf::FrameRef frame);
  // The last frame, behind all queued data (see OutQueue::push_last).
  void send_last(buf::FrameRef frame);

  // Stops reading, flushes what is queued, then closes. Further sends are
  // still accepted until the queue drains.
  void close_after_flush(CloseReason reason);
  // Closes now; queued frames are released.
  void close_now(CloseReason reason);

  [[nodiscard]] bool closed() const { return fd_ < 0; }
  [[nodiscard]] bool closing() const { return closing_; }
  // Output is done and our side is shut; waiting for the peer's EOF so that
  // unread request bytes do not turn the close into a reset that could
  // destroy the response (the owner's sweep ends a linger that lasts).
  [[nodiscard]] bool lingering() const { return lingering_; }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const OutQueue& out_queue() const { return out_; }
  [[nodiscard]] io::Loop::Clock::time_point last_activity() const { return last_activity_; }

 protected:
  // Called after new bytes arrived. Consume from the front of `input`
  // (erase what was used); bytes left stay for the next call. Reading
  // pauses while `input` holds receive_budget bytes.
  virtual void on_input(std::string& input) = 0;
  // Called once, when the connection closes, whatever the reason.
  virtual void on_closed(CloseReason reason) = 0;
  // Called when the peer closed its sending side: input is complete.
  virtual void on_peer_eof() { close_after_flush(CloseReason::peer); }
  // Called at the start of each flush: the last chance to queue frames
  // (coalesced notices, say) that should leave in this write.
  virtual void before_flush() {}
  // Called when a flush left the queue empty: a protocol that stopped
  // consuming input to bound its replies may go on (see resume_input()).
  virtual void on_drained() {}

  // Hands the bytes still buffered to on_input() again, then reads on.
  void resume_input();

  io::Loop& loop() { return loop_; }
  // For slow-consumer policies, which drop and replace queued frames.
  OutQueue& mutable_out_queue() { return out_; }
  // Schedules a flush at the end of this tick (after bytes were queued).
  void want_flush() { loop_.defer(this); }

 private:
  void on_ready(std::uint32_t events) override;
  void run_deferred() override;
  void read_available();
  void flush();
  void set_write_interest(bool on);
  void start_linger();

  io::Loop& loop_;
  int fd_;
  ConnectionLimits limits_;
  OutQueue out_;
  SocketWriter writer_;
  std::string input_;
  io::Loop::Clock::time_point last_activity_;
  bool write_armed_ = false;
  bool closing_ = false;
  bool read_more_ = false;  // a read turn ended before EAGAIN: run_deferred reads on
  bool lingering_ = false;
  CloseReason close_reason_ = CloseReason::peer;
};

}  // namespace sluice::conn
