// Owns: what an HTTP/2 stream's latency gate (conn/latency_gate.hpp) knows
// of its reader: H2SocketBacklog, the connection's reader's backlog as
// offsets into the connection's byte stream, and H2StreamBacklog, one
// stream's share of it.
//
// Every stream of a connection reaches its reader through the same kernel
// queues: bytes the engine holds after a short write, the socket's unsent
// and unacknowledged bytes (SIOCOUTQ), and bytes the reader's kernel
// acknowledged and its client has not read (its window, TCP_INFO). From
// those, H2SocketBacklog says up to where in the connection's bytes the
// reader's kernel has acknowledged (`acked`) and its client has read
// (`consumed`), at most one look at the kernel per tick and write however
// many streams ask. The engine notes where each watched stream's bytes lie
// in the connection's bytes (transport/h2_wire_marks.hpp), so a stream's
// backlog is its bytes past those offsets: a slow reader's gated stream
// holds its own frames, while its other streams, gated or not, go on.
//
// What the kernel cannot show is the client's own buffering after it read
// the socket: an HTTP/2 client that reads eagerly keeps up to the
// stream's flow-control window, which it chooses, in its own memory.
// Over TLS the kernel counts records, not the plaintext the offsets count:
// a record's few bytes of framing look unread, never the other way.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "conn/peer_backlog.hpp"
#include "transport/h2_session.hpp"

namespace sluice::session {

class H2SocketBacklog {
 public:
  using Clock = conn::PeerBacklog::Clock;
  struct Offsets {
    std::uint64_t acked = 0;     // the reader's kernel acknowledged the bytes before this
    std::uint64_t consumed = 0;  // the reader's client read the bytes before this
    std::uint64_t arrived = 0;   // the path delivers the bytes before this within a round trip
    // The socket's, for every stream: the step its reader's window moves
    // in, the path's least round trip, and what the reader's kernel takes
    // now (conn::Backlog).
    std::size_t window_unit = 1;
    std::chrono::microseconds round_trip{0};
    std::size_t room = 0;
  };

  // Reads socket `fd`, which it does not own, about `h2`'s bytes; its
  // streams share one padding budget of `padding_per_second`, and one
  // credit and rest (conn::PeerBacklog): every stream's bytes fill the
  // same window, and any of them pays for padding that fills it.
  H2SocketBacklog(int fd, const transport::H2Session& h2, std::size_t padding_per_second)
      : peer_(fd, padding_per_second), h2_(h2) {}

  // nullopt when the kernel does not tell (see conn::PeerBacklog).
  [[nodiscard]] std::optional<Offsets> sample(Clock::time_point now);
  // At the last look, bytes of the connection were sent and not yet
  // acknowledged by the reader's kernel.
  [[nodiscard]] bool unacknowledged() const { return last_ && last_->acked < last_written_; }
  // The padding the socket's reader should be sent (conn::Backlog), once
  // per look that asked for it: the first stream to take it carries it
  // for all, since every stream's bytes fill the same window.
  [[nodiscard]] std::size_t take_padding() { return std::exchange(padding_, 0); }
  // A stream queued `bytes` of it.
  void padded(std::size_t bytes, Clock::time_point now) { peer_.padded(bytes, now); }

 private:
  conn::PeerBacklog peer_;
  const transport::H2Session& h2_;
  Clock::time_point last_at_{};
  std::uint64_t last_written_ = UINT64_MAX;
  std::optional<Offsets> last_;
  std::size_t padding_ = 0;
};

class H2StreamBacklog final : public conn::BacklogSource {
 public:
  // `stream` must be watched (H2Session::watch()); `socket` and `h2`
  // outlive this.
  H2StreamBacklog(H2SocketBacklog& socket, transport::H2Session& h2, std::int32_t stream)
      : socket_(socket), h2_(h2), stream_(stream) {}

  [[nodiscard]] std::optional<conn::Backlog> sample(Clock::time_point now) override;
  [[nodiscard]] bool shares_segments() const override { return true; }
  void padded(std::size_t bytes, Clock::time_point now) override { socket_.padded(bytes, now); }

 private:
  H2SocketBacklog& socket_;
  transport::H2Session& h2_;
  const std::int32_t stream_;
};

}  // namespace sluice::session
