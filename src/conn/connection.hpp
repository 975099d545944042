// Owns: Connection, one accepted connection on one loop: reading its
// transport into a bounded input buffer, the memory account every buffer
// the connection's client can make grow is charged to (the input buffer
// here, the phases' own through memory(); the transport's record buffers
// are charged to the server's cap apart), flushing its outlet's queue once
// per tick (through its latency gate, once a stream asked for one), and
// closing (gracefully, after the queue drains, or at once).
//
// The bytes move through a Transport (plain TCP or TLS); what
// they mean is up to the class that derives from this one and implements
// on_input() and on_closed(). All calls happen on the owning loop's thread.
// A closed connection stays allocated until its owner reaps it at the end
// of the tick, because ready events for it may still be in flight.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "buf/memory_account.hpp"
#include "conn/latency_gate.hpp"
#include "conn/out_queue.hpp"
#include "conn/outlet.hpp"
#include "conn/writer.hpp"
#include "io/loop.hpp"
#include "conn/transport.hpp"

namespace sluice::conn {

struct ConnectionLimits {
  OutQueueLimits send;                   // the send budget
  // Input bytes held at most. A request is acted on once whole, so the
  // default holds the largest body http.max_body lets in with the largest
  // head the parser takes (request line and header section) beside it, and
  // room for the line ends and a chunked body's framing of a few chunks.
  std::size_t receive_budget = (1 << 20) + 8192 + 16384 + 64;
  // Bytes read in one turn before the loop moves on to other sockets and
  // comes back (a client that keeps its socket full must not hold the loop);
  // a turn is cut shorter when the loop's tick has less left (io::ReadQueue).
  std::size_t receive_turn = 128 << 10;
  // What the connection's buffers outside the pool may hold past their
  // resting size, all together (input, a message or body being joined).
  std::size_t memory_bytes = 2 << 20;
  // The cap every connection's account draws on too; null: none.
  buf::MemoryCap* memory_cap = nullptr;
};

// Bytes one read asks for; also the least a turn reads once the loop's
// tick budget is spent (io::ReadQueue::turn).
inline constexpr std::size_t kReadChunk = 16 << 10;

// What the input buffer may keep at rest without being charged: one read
// chunk plus the partial request or frame left before it.
inline constexpr std::size_t kInputResting = 32 << 10;

// A connection with no byte read or written for this long, nothing queued
// and nothing half read, gives back its queue's slots and its input buffer
// (Connection::rest_if_quiet): an idle subscriber holds only its state, not
// what the traffic it once had needed. Long against the gaps of a stream
// that is busy, so that such a stream takes its buffers once, not per event.
inline constexpr std::chrono::seconds kQuietRest{5};

namespace detail {
// The connection's queue, as a base constructed before the Outlet that
// refers to it.
struct OwnedQueue {
  explicit OwnedQueue(const OutQueueLimits& limits) : owned_queue(limits) {}
  OutQueue owned_queue;
};
}  // namespace detail

class Connection : private detail::OwnedQueue,
                   public io::Handler,
                   public io::Deferred,
                   public io::Reader,
                   public Outlet,
                   public AnswerInbox {
 public:
  Connection(io::Loop& loop, std::unique_ptr<Transport> transport, const ConnectionLimits& limits);
  virtual ~Connection();

  // Registers with the loop; returns 0 or -errno.
  int start();

  void close_after_flush(CloseReason reason) override;
  void close_now(CloseReason reason) override;
  // Hands the bytes still buffered to on_input() again, then reads on.
  void resume_input() override;
  bool bound_unread(const LatencyGateSettings& settings, GateChecks& checks, GateFrames frames) override;
  void ask_read_receipts(buf::FrameRef ask) override;
  void read_receipt() override;
  // The gate bound_unread() put on this connection, or null.
  [[nodiscard]] const LatencyGate* latency_gate() const { return gate_.get(); }

  // Output is done and our side is shut; waiting for the peer's EOF so that
  // unread request bytes do not turn the close into a reset that could
  // destroy the response (the owner's sweep ends a linger that lasts).
  [[nodiscard]] bool lingering() const { return lingering_; }
  [[nodiscard]] io::Loop::Clock::time_point last_activity() const { return last_activity_; }
  // Quiet for kQuietRest (see there): the queue's slots and the input
  // buffer go back. The owner's sweep asks.
  void rest_if_quiet(io::Loop::Clock::time_point now);
  // The queue's slots go back once everything queued now is written: a
  // connection that became a stream took them for its handshake reply,
  // and an idle stream needs none until its next frame.
  void give_back_slots_when_drained() { give_back_slots_ = true; }
  // The transport is still setting up (a TLS handshake): no input yet.
  [[nodiscard]] bool transport_handshaking() const { return transport_ && transport_->handshaking(); }
  // The transport's handshake chose HTTP/2 (TLS with ALPN h2).
  [[nodiscard]] bool transport_chose_h2() const { return transport_ && transport_->chose_h2(); }
  // The client's ADDRESS:PORT, asked of the transport (a system call).
  [[nodiscard]] std::string transport_peer_address() const {
    return transport_ ? transport_->peer_address() : std::string();
  }
  // The socket under the transport, for what the kernel tells about it
  // (a latency gate of a stream carried here); -1 once it is gone.
  [[nodiscard]] int socket_fd() const { return transport_ ? transport_->fd() : -1; }
  // Reads note when their bytes reached this host (Transport::
  // note_arrivals): a reader's answer to a latency gate is judged by when
  // it came (the gate of an HTTP/2 stream carried here asks too).
  void note_input_arrivals() {
    if (transport_) (void)transport_->note_arrivals();
  }
  // When the input read last reached this host, on the loop's clock, no
  // later than the loop's time now; the loop's time when not noted.
  [[nodiscard]] io::Loop::Clock::time_point input_arrival();
  // When the oldest input not read yet reached this host, while it waits
  // only for the loop (AnswerInbox): not while the protocol holds its input,
  // once its buffer is full, while a read waits for memory or for the socket
  // to take a handshake message, nor once the connection is closing. A
  // system call.
  [[nodiscard]] std::optional<io::Loop::Clock::time_point> unread_since(io::Loop::Clock::time_point now) override;
  // The account this connection's buffers outside the pool are charged to.
  [[nodiscard]] buf::MemoryAccount& memory() { return memory_; }
  // Tries a read that waited for the server's memory again (the owner's
  // sweep): nothing would wake the connection when memory comes back.
  void retry_read_for_memory();

 protected:
  // Called after new bytes arrived. Consume from the front of `input`
  // (erase what was used); bytes left stay for the next call. Reading
  // pauses while `input` holds receive_budget bytes.
  virtual void on_input(std::string& input) = 0;
  // Called once, when the connection closes, whatever the reason.
  virtual void on_closed(CloseReason reason) = 0;
  // While true nothing is read: the protocol holds its input (its client
  // leaves replies unread, or a publish waits for room) and calls
  // resume_input() when it goes on. The client's TCP window then fills:
  // backpressure, where reading on would fill the input buffer for nothing.
  [[nodiscard]] virtual bool input_held() const { return false; }
  // The input buffer holds a partial request or message and may not grow
  // (the memory account refused it): the protocol answers, or waits for a
  // consumer to make room. Reading stops until resume_input().
  virtual void on_input_refused(buf::ChargeStatus status) { (void)status; }
  // Called when the peer closed its sending side, and again each time input
  // resumes after that (resume_input()): nothing more is read, and the
  // protocol closes once it has answered what it read before. The default
  // closes once the queue drains.
  virtual void on_peer_eof() { close_after_flush(CloseReason::peer); }
  // Called at the start of each flush: the last chance to queue frames
  // (coalesced notices, say) that should leave in this write.
  virtual void before_flush() {}
  // Called when a flush left the queue empty: a protocol that stopped
  // consuming input to bound its replies may go on (see resume_input()).
  virtual void on_drained() {}
  // Writes what is queued through `writer`: the queue's own frames unless
  // the protocol frames its output itself (HTTP/2 gathers its streams'
  // queues into frames of its own).
  virtual FlushResult write_queued(Writer& writer, DataAllowance allowance) { return queue().flush(writer, allowance); }

 private:
  // The OutQueue writes through this; it hands the bytes to the transport.
  struct TransportWriter final : Writer {
    long writev(const struct iovec* iov, int count) override { return target->writev(iov, count); }
    Transport* target = nullptr;
  };

  void on_ready(std::uint32_t events) override;
  void run_deferred() override;
  void read_turn() override;
  // Reads one turn, or until the socket has no more; a turn that ends with
  // bytes left puts the connection in the loop's read queue.
  void read_available();
  // Reads now unless the connection waits in the read queue for its turn.
  void read_unless_queued();
  // No more input is read until the protocol acts: the connection closes,
  // the protocol holds its input, or the input buffer is full.
  [[nodiscard]] bool input_paused() const {
    return closing() || peer_ended_ || input_held() || input_.size() >= limits_.receive_budget;
  }
  void flush();
  void set_write_interest(bool on);
  [[nodiscard]] bool transport_waits_for_writable() const;
  void start_linger();
  // Makes room for `want` more input bytes, charging what passes
  // kInputResting; returns the room there is (0 when refused, and the
  // protocol was told unless `answer_refusal` is false).
  std::size_t input_room(std::size_t want, bool answer_refusal = true);
  // Gives back an input buffer a large request grew, once it is used up.
  void rest_input();
  // Charges what the transport holds now (its held_bytes()); false when
  // the account refused it and the connection was closed.
  [[nodiscard]] bool charge_transport();
  // Charges what the next read (into `room` bytes) may make the transport
  // hold, or has the read held to what leaves nothing held (widening
  // `room` to a whole record); false when the read is not to be made (it
  // waits for the server's memory, or the connection was closed).
  [[nodiscard]] bool reserve_for_read(std::size_t& room);
  // Widens `room` to the whole `record` (the room its plaintext needs)
  // waiting longer than it, and holds the next read to it; false when the
  // input buffer cannot take it whole.
  [[nodiscard]] bool confine_wider(std::size_t record, std::size_t& room);
  // Holds the next read to the whole record at the head of the socket,
  // whose plaintext past the read's room the transport keeps, charging
  // its `reserve` to the record account from the server cap's reserve;
  // false when no such read can be made (or the reserve is full).
  [[nodiscard]] bool keep_rest_in_reserve(std::size_t reserve);

  std::unique_ptr<Transport> transport_;
  TransportWriter writer_;
  std::unique_ptr<LatencyGate> gate_;
  bool gate_tried_ = false;
  ConnectionLimits limits_;
  buf::MemoryAccount memory_;
  std::string input_;
  std::size_t input_charge_ = 0;  // what memory_ holds for input_
  // The transport's buffers (TLS records), charged to the cap apart from
  // memory_ (see reserve_for_read()), up to the transport's most_held().
  buf::MemoryAccount transport_memory_;
  std::size_t transport_charge_ = 0;  // what transport_memory_ holds
  bool give_back_slots_ = false;  // give_back_slots_when_drained() was asked
  io::Loop::Clock::time_point last_activity_;
  bool write_armed_ = false;
  bool lingering_ = false;
  // The peer closed its sending side: what the input buffer holds is all
  // there is (on_peer_eof()).
  bool peer_ended_ = false;
  bool read_waits_for_memory_ = false;
  CloseReason close_reason_ = CloseReason::peer;
};

}  // namespace sluice::conn
