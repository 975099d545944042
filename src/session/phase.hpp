// Owns: Phase, what one connection speaks at one time. A connection starts
// reading HTTP/1.1 requests (HttpRequestPhase); a request may turn it into a
// stream for the rest of its life (an SSE stream, a WebSocket stream), and
// the connection then replaces its phase object with the stream's. Each
// phase holds only its own protocol's state.
//
// Every call happens on the thread of the loop that owns the connection.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "buf/frame.hpp"
#include "buf/memory_account.hpp"
#include "conn/out_queue.hpp"
#include "conn/writer.hpp"
#include "io/loop.hpp"
#include "session/topic_slot.hpp"

namespace sluice::session {

class Phase {
 public:
  virtual ~Phase() = default;
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

  // New bytes from the peer: consume from the front of `input` (erase what
  // was used); bytes left stay for the next call.
  virtual void on_input(std::string& input) = 0;
  // While true the connection reads nothing more (see
  // conn::Connection::input_held()).
  [[nodiscard]] virtual bool holds_input() const { return false; }
  // The input buffer may not grow for the partial request or message it
  // holds (see conn::Connection::on_input_refused()).
  virtual void on_input_refused(buf::ChargeStatus status) { (void)status; }
  // The peer shut its sending side; asked again each time input resumes
  // after that (conn::Connection::on_peer_eof()). True while the phase
  // still owes answers to what it read (it resumes input when it goes on);
  // false lets the connection close after its queue drains.
  virtual bool on_peer_eof() { return false; }
  // The start of each flush: the last chance to queue frames (coalesced
  // notices) that should leave in this write.
  virtual void before_flush() {}
  // A flush left the queue empty.
  virtual void on_drained() {}
  // A flush wrote bytes: a stream whose queue fell far enough below its
  // budget may give a publisher waiting for room its room back.
  virtual void on_flushed() {}
  // The flush itself: the connection's queue through `writer`, unless the
  // phase frames its output itself (HTTP/2).
  virtual conn::FlushResult write_queued(conn::Writer& writer, conn::OutQueue& queue, conn::DataAllowance allowance) {
    return queue.flush(writer, allowance);
  }
  // The owner's sweep: timeouts, pings, pong deadlines.
  virtual void tick(io::Loop::Clock::time_point now) = 0;
  // Queued data holds the pool (the owner's sweep, server/pool_shedding.hpp):
  // each stream of this connection whose reader has been behind for at
  // least `looks` looks in a row (conn::OutQueue::look_behind()) lets go
  // of the data it holds and is cut off as a slow consumer. Returns the
  // streams cut off. A phase that is no stream holds nothing to shed.
  virtual std::size_t shed_behind(std::uint32_t looks) {
    (void)looks;
    return 0;
  }
  // The server is stopping: say goodbye in the protocol's own way (the
  // connection then flushes and closes).
  virtual void shutdown() {}
  // The connection closed, whatever the reason: let go of what the phase
  // holds elsewhere (topics, a held publish) before anything is destroyed.
  virtual void on_closed() {}
  // A whole frame another thread encoded for this connection (a
  // ConnectionRef), for its HTTP/2 stream `stream` (0: the connection).
  // Returns false when this phase takes no such frames.
  virtual bool on_posted(std::int32_t stream, buf::FrameRef& frame) {
    (void)stream;
    (void)frame;
    return false;
  }
  // What the admin API lists of a connection in this phase: its transport's
  // name and the topics it follows (a slot left empty is no topic).
  struct View {
    std::string_view transport = "http";
    std::span<const TopicSlot> topics;
  };
  [[nodiscard]] virtual View view() const { return {}; }
  // The connection's view, then those of the streams it carries (an
  // HTTP/2 connection's event streams and WebSockets), in that order.
  virtual void each_view(const std::function<void(const View&)>& visit) const { visit(view()); }

 protected:
  Phase() = default;
};

}  // namespace sluice::session
