// Owns: H2Output, the bytes of one HTTP/2 connection on their way to its
// transport. nghttp2 produces frames one at a time; they are gathered into
// a round and written with one writev, so that many small events on many
// streams leave in one system call (and, over TLS, in full records):
//
// - frames other than DATA (HEADERS, SETTINGS, WINDOW_UPDATE, RST_STREAM,
//   GOAWAY) are small and are copied into the round's frame area;
// - a DATA frame is its 9-byte header (copied) and the stream's queued
//   bytes by reference, no copy: iovecs into the queue's pool blocks.
//
// After the write each stream's queue lets go of exactly the bytes the
// transport took; a stream whose latency gate watches it is told where its
// bytes lie in the connection's byte stream (H2WireMarks). If the transport took only part of the round (its socket
// is full), the rest is copied into `pending` and goes out first next time:
// by then the streams' queues may have changed (a policy dropped or
// conflated a frame), and a DATA frame's bytes are promised once its
// header is out. A round holds at most kRoundBytes, so what a full socket
// leaves committed stays as shallow as the kernel's own unsent queue
// (tcp.notsent_lowat); everything behind it waits in the streams' queues,
// where their policies can act.
//
// The round itself is scratch of the calling thread, used only inside
// one flush.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conn/out_queue.hpp"
#include "conn/writer.hpp"
#include "transport/h2_stream.hpp"

namespace sluice::transport::detail {

// A round closes once it holds this many bytes.
inline constexpr std::size_t kRoundBytes = 16384;
// The most payload one DATA frame carries, whatever frame size the peer
// allows: HTTP/2's default maximum.
inline constexpr std::size_t kMaxDataPayload = 16384;

class H2Output {
 public:
  H2Output() = default;
  H2Output(const H2Output&) = delete;
  H2Output& operator=(const H2Output&) = delete;

  // Starts an empty round on this thread.
  void begin_round();
  // The round holds kRoundBytes or more, or its iovecs are nearly spent.
  [[nodiscard]] bool round_full() const;
  [[nodiscard]] bool round_empty() const;
  // Room for one more DATA frame: its header, and a payload of at least
  // one iovec.
  [[nodiscard]] bool can_take_data_frame() const;
  // Iovecs still free for a DATA frame's payload.
  [[nodiscard]] int payload_iov_room() const;

  // Copies a serialized frame (not DATA) into the round. Returns the bytes
  // taken: fewer than `length` (even 0) when the frame area is full.
  std::size_t add_frame_bytes(const std::uint8_t* data, std::size_t length);
  // Adds a DATA frame: its header and the next `length` bytes of
  // `stream->queue`, after those already in the round.
  void add_data_frame(const std::uint8_t* header, H2Stream* stream, std::size_t length);

  // Writes what a short write left behind. False when the transport is
  // still blocked (or failed): `result` says which.
  [[nodiscard]] bool write_pending(conn::Writer& writer, conn::FlushResult& result);
  // Writes the round. False when the transport took only part of it (the
  // rest is now pending) or failed.
  [[nodiscard]] bool write_round(conn::Writer& writer, conn::FlushResult& result);

  // Queues bytes made without nghttp2 (a last GOAWAY) to go out next.
  void append_raw(std::string_view bytes) {
    pending_.append(bytes);
    produced_ += bytes.size();
  }

  [[nodiscard]] bool has_pending() const { return pending_at_ < pending_.size(); }
  [[nodiscard]] std::size_t pending_bytes() const { return pending_.size() - pending_at_; }
  // Bytes the transport has taken since the connection began: where the
  // next byte written lies in the connection's byte stream.
  [[nodiscard]] std::uint64_t written() const { return produced_ - pending_bytes(); }

 private:
  void settle(std::size_t taken);
  [[nodiscard]] bool note_write(long wrote, std::size_t offered, conn::FlushResult& result);

  std::string pending_;  // the rest of a round the transport did not take
  std::size_t pending_at_ = 0;
  std::uint64_t produced_ = 0;  // bytes of every settled round and raw append
};

}  // namespace sluice::transport::detail
