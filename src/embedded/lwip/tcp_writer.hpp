// Owns: TcpWriter, the conn::Writer that hands an OutQueue's bytes to lwIP
// with tcp_write, and TcpWriterLimits.
//
// An event source that sends one event per TCP send and waits for its ACK
// caps a stream at one event per round trip. Here a flush gives lwIP as
// many queued frames as its send buffer and queue take, every write with
// TCP_WRITE_FLAG_MORE, so lwIP packs them into full segments and the
// caller's tcp_output at the end of the batch sends them together; nothing
// waits for an ACK but what lwIP has no room for, and a frame cut by a full
// buffer is resumed at its offset by the next flush (tcp_sent drives it).
//
// In copy mode (TCP_WRITE_FLAG_COPY) lwIP copies at tcp_write, so the queue
// releases each frame the moment its last byte is written; small slices are
// first gathered in a scratch buffer so that one tcp_write carries many
// events (lwIP's per-write work, its queue walk and checksum, is paid once).
// Without copy, lwIP reads the pool blocks until the peer acknowledges them:
// each frame is held in an AckHold from its first byte until tcp_sent passes
// its last. Builds of lwIP with LWIP_NETIF_TX_SINGLE_PBUF (Debian's, and
// ESP-IDF's) copy either way.
//
// Bulk data must neither starve control traffic of buffers nor bury it
// (and every later event) in a deep send queue that nothing can skip: data
// may not take the last `control_reserve_bytes` of lwIP's send buffer nor
// its last `control_reserve_slots` queue entries, and may leave at most
// `max_unsent` bytes waiting in lwIP; the rest stays in the OutQueue, where
// control frames overtake it and a policy can still drop or conflate it.
// The bytes the queue marks as control traffic ahead (begin_batch) may use
// the reserve and pass max_unsent.
#pragma once

#include <lwip/tcp.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "embedded/lwip/ack_hold.hpp"
#include "conn/writer.hpp"

namespace sluice::embedded::lwip {

struct TcpWriterLimits {
  bool copy = true;  // TCP_WRITE_FLAG_COPY; false needs an AckHold
  std::size_t max_unsent = 2 * TCP_MSS;
  std::size_t control_reserve_bytes = 256;  // a pong, a close frame, a notice
  std::size_t control_reserve_slots = 2;
};

struct TcpWriterStats {
  std::uint64_t tcp_writes = 0;  // tcp_write calls that lwIP took
  std::uint64_t refused = 0;     // tcp_write calls that lwIP refused (ERR_MEM)
  std::uint64_t bytes = 0;
};

class TcpWriter final : public conn::Writer {
 public:
  // `hold` is needed when !limits.copy. `scratch` (copy mode only; may be
  // empty) gathers small slices; it is used only inside writev, so every
  // connection of a loop can share one.
  TcpWriter(tcp_pcb* pcb, const TcpWriterLimits& limits, AckHold* hold, std::span<char> scratch);

  // Starts a flush: its first `control_bytes` bytes are control traffic
  // (conn::OutQueue::control_bytes_ahead()).
  void begin_batch(std::size_t control_bytes);

  // One tcp_write per slice, or per run of slices gathered in scratch, as
  // far as lwIP's room allows. Returns the bytes lwIP took, or -EAGAIN.
  long writev(const struct iovec* iov, int count) override;
  void frame_started(const buf::FrameRef& frame) override;

  void detach() { pcb_ = nullptr; }  // lwIP freed the pcb
  [[nodiscard]] const TcpWriterStats& stats() const { return stats_; }

 private:
  [[nodiscard]] std::size_t room() const;
  [[nodiscard]] std::size_t take_slice(const char* bytes, std::size_t length);
  [[nodiscard]] bool put(const char* bytes, std::size_t n);
  [[nodiscard]] bool write(const char* bytes, std::size_t n);
  [[nodiscard]] bool commit_scratch();

  tcp_pcb* pcb_;
  TcpWriterLimits limits_;
  AckHold* hold_;
  std::span<char> scratch_;
  std::size_t scratch_used_ = 0;
  std::size_t committed_ = 0;     // bytes of the current writev lwIP has
  std::size_t control_left_ = 0;  // control bytes of this batch not yet taken
  TcpWriterStats stats_;
};

}  // namespace sluice::embedded::lwip
