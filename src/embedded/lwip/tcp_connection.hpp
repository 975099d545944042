// Owns: TcpConnection, one TCP connection of lwIP's raw API under sluice:
// its OutQueue, drained into lwIP by a TcpWriter, its input, gathered by a
// TcpInput, and lwIP's callbacks turned into those two moving.
//
// A batch of pushes ends with flush(): the queue goes to lwIP as far as it
// has room, then one tcp_output sends it. tcp_sent (acknowledged bytes made
// room) drives the next flush, so a slow peer is fed as fast as it
// acknowledges and no faster, and tcp_poll retries a flush or a close that
// lwIP refused for want of memory. Everything runs in lwIP's context (the
// single loop of a NO_SYS=1 build, or with lwIP's core lock held); nothing
// blocks, and nothing allocates but the OutQueue's ring as it grows (and
// not even that when the caller hands in the ring's slots).
#pragma once

#include <lwip/tcp.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "embedded/lwip/ack_hold.hpp"
#include "embedded/lwip/tcp_input.hpp"
#include "embedded/lwip/tcp_writer.hpp"
#include "conn/out_queue.hpp"

namespace sluice::embedded::lwip {

struct TcpConnectionLimits {
  conn::OutQueueLimits queue;
  TcpWriterLimits writer;
  std::uint8_t poll_interval = 2;  // in lwIP's coarse timer ticks of 500 ms
};

// Memory the caller owns and keeps alive as long as the connection.
struct TcpConnectionMemory {
  std::span<char> input;           // received bytes not yet consumed
  std::span<AckHold::Slot> held;   // frames lwIP reads until acknowledged; not empty when writer.copy is false
  std::span<char> scratch;         // TcpWriter's gathering buffer; one per loop will do
  // The queue's ring slots, for a device with no heap after start-up; empty
  // spans: the queue grows its rings from the heap as it needs them.
  conn::OutQueueMemory queue;
};

class TcpConnection {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // New bytes in input(), or the peer closed its side (input_closed()).
    virtual void on_input(TcpConnection& connection) = 0;
    // The connection is over: reset by the peer, dropped by lwIP, or closed
    // and done. Nothing reaches lwIP through it afterwards; it may be
    // destroyed once this returns.
    virtual void on_closed(TcpConnection& connection, err_t reason) = 0;
    // lwIP's poll timer fired (every poll_interval ticks), after the
    // connection retried its flush: the place for the handler's deadlines.
    virtual void on_poll(TcpConnection& connection) { (void)connection; }
  };

  // Takes over `pcb`, an accepted or connected one, and its callbacks.
  TcpConnection(tcp_pcb* pcb, Handler& handler, const TcpConnectionLimits& limits, const TcpConnectionMemory& memory);
  // Resets the connection (tcp_abort) if lwIP still has it.
  ~TcpConnection();
  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  [[nodiscard]] conn::OutQueue& out() { return out_; }
  [[nodiscard]] const conn::OutQueue& out() const { return out_; }

  // Hands lwIP what the queue holds, as far as it has room, then sends it.
  void flush();

  [[nodiscard]] std::string_view input() const { return input_.bytes(); }
  // The application is done with the first `n` bytes of input(): they
  // leave the buffer and lwIP's window opens by as much. input() may hold
  // more afterwards (bytes lwIP kept while the buffer was full).
  void consume(std::size_t n);
  [[nodiscard]] bool input_closed() const { return input_closed_; }

  // Closes once the queue has drained: its last bytes, then FIN.
  void close();
  // Resets the connection now (tcp_abort) and releases every frame; the
  // handler's on_closed runs before it returns. Inside one of lwIP's
  // callbacks the connection answers lwIP ERR_ABRT, as lwIP requires.
  void abort();
  // lwIP will call nothing more and holds no frame: the object may go.
  [[nodiscard]] bool finished() const { return finished_; }

  [[nodiscard]] const TcpWriterStats& writer_stats() const { return writer_.stats(); }
  [[nodiscard]] std::size_t held_frames() const { return hold_.held(); }

 private:
  static err_t on_recv(void* arg, tcp_pcb* pcb, pbuf* p, err_t err);
  static err_t on_sent(void* arg, tcp_pcb* pcb, u16_t len);
  static err_t on_poll(void* arg, tcp_pcb* pcb);
  static void on_error(void* arg, err_t err);

  void deliver();
  void try_close();
  void drain_input();
  void attach();
  void detach();
  void let_go(bool abort);
  void finish(err_t reason);

  tcp_pcb* pcb_;
  Handler& handler_;
  conn::OutQueue out_;
  AckHold hold_;
  TcpWriter writer_;
  TcpInput input_;
  std::size_t consumed_ = 0;  // input bytes consumed so far, to see a handler read
  std::uint8_t poll_interval_;
  bool input_closed_ = false;
  bool closing_ = false;     // close() asked; FIN goes once the queue drains
  bool fin_queued_ = false;  // tcp_close done; held frames wait for their ACK
  bool delivering_ = false;  // inside tcp_process_refused_data, called by consume()
  bool finished_ = false;
  bool aborted_ = false;     // abort() done: a callback still running answers ERR_ABRT
};

}  // namespace sluice::embedded::lwip
