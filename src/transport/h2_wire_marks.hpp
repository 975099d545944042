// Owns: H2WireMarks, where one HTTP/2 stream's bytes lie in its
// connection's byte stream, so that what the peer has read of the
// connection (an offset into that byte stream) says what it has read of
// the stream.
//
// Many streams' DATA frames share one TCP connection, each stream's bytes
// in runs between the others'. A mark says "the stream's bytes up to here
// lie on the wire up to there"; once the peer has read the wire past a
// mark, it has read the stream up to it. A fixed number of marks is kept:
// when they run out the newest is moved forward, which makes the stream's
// bytes look later on the wire than they are, so they count as unread a
// little longer, never less.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "conn/peer_backlog.hpp"

namespace sluice::transport {

class H2WireMarks {
 public:
  static constexpr std::size_t kMarks = 16;

  // Starts watching: the stream's first `stream_sent` bytes are left out of
  // every backlog().
  void start(std::uint64_t stream_sent);
  [[nodiscard]] bool watching() const { return watching_; }
  // The stream's bytes up to `stream_end` lie on the wire before `wire_end`.
  void add(std::uint64_t wire_end, std::uint64_t stream_end);
  // The stream's share of the peer's backlog, of `stream_sent` bytes sent,
  // when the peer's kernel has acknowledged the wire up to `acked` and its
  // application has read it up to `consumed` (consumed <= acked): bytes
  // past `acked` are in flight, those between are unread. Of those in
  // flight, the ones the path delivers within a round trip, up to
  // `arrived` (>= acked), are arriving.
  [[nodiscard]] conn::Backlog backlog(std::uint64_t acked, std::uint64_t consumed, std::uint64_t arrived,
                                      std::uint64_t stream_sent);

 private:
  struct Mark {
    std::uint64_t wire_end;
    std::uint64_t stream_end;
  };

  std::array<Mark, kMarks> marks_{};
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::uint64_t consumed_ = 0;  // stream bytes the peer has read, as far as known
  bool watching_ = false;
};

}  // namespace sluice::transport
