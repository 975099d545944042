// Owns: PeerBacklog, an estimate of how many of the bytes written to a TCP
// socket the peer's application has not read yet, from what Linux tells
// about the connection.
//
// Three kernel queues hold those bytes. Two are ours and exact: bytes not
// yet sent, and bytes sent but not yet acknowledged (SIOCOUTQ counts both).
// The third is the peer's receive buffer: bytes its kernel acknowledged and
// its application has not read. Nothing reports them directly, but they
// show in the window the peer advertises, which is the room left in that
// buffer: the estimate is the largest window it advertised lately minus the
// window it advertises now (TCP_INFO's tcpi_snd_wnd, Linux 5.4 and later).
//
// What bounds the estimate's accuracy:
// - A peer advertises a window only in an ACK, and a read alone sends one
//   only when it empties a buffer that had an ACK pending, or when it
//   doubles a nearly closed window. Until the next ACK, bytes already read
//   still count: the estimate errs towards "not read yet" (LatencyGate
//   sends a probe to get that ACK).
// - The window moves in whole segments (the peer's idea of our segment
//   size, and 2^scale bytes with window scaling), and a buffer may keep
//   offering the same window while its first segment or kilobytes wait in
//   it: the estimate errs towards "read". A small buffer (a device's 4-6
//   KiB) is exact to the byte only when our segments divide it; otherwise
//   even an empty one offers less than it did in the handshake (a 4 KiB
//   buffer reading 1049-byte segments: 4096 bytes, then 3147 at most), and
//   the estimate shows that remainder as unread (LatencyGate discounts it).
// - With window scaling the window moves in steps of 2^scale bytes (the
//   reader's choice: 1 KiB for a Linux reader whose buffer may autotune to
//   32 MiB), and a reader never takes back window it offered: each ACK
//   offers at least what was left of the last one, rounded up to a whole
//   step. When each ACK covers fewer bytes than a step (small frames, one
//   or a few per ACK) the right edge creeps forward by that rounding, and
//   the window stays where it was however much waits unread: a reader of
//   64-byte frames over loopback showed a constant 64 KiB window with 45 KB
//   unread. The estimate then says nothing unread; window_unit tells the
//   step, so that a caller can tell when to distrust it.
// - The largest window grows as the peer's buffer autotunes upwards; one
//   not seen again within two memory periods is forgotten, so that a
//   buffer the peer shrank cannot count as unread for ever, but only once
//   the window has been at rest (the same, nothing in flight) for kRest:
//   then the reader has read what it will, and its window is what its
//   buffer offers now. A reader that reads all the time but never empties
//   its buffer (a 2 KiB read takes one 1 KiB frame and most of the next)
//   never shows its largest window again, and forgotten, the one it shows
//   with a frame in it became the largest: that frame counted as read for
//   good, and such a reader got frames two or three read intervals old
//   where the gate meant one.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "conn/round_trip_credit.hpp"

namespace sluice::conn {

struct Backlog {
  std::size_t in_flight = 0;  // written and not yet acknowledged by the peer, unsent bytes included
  std::size_t unread = 0;     // acknowledged, and by the peer's window not yet read by its application
  // Of in_flight, bytes sent that the path delivers within about one round
  // trip (round_trip_credit()): as good as read when a frame written now
  // could arrive.
  std::size_t arriving = 0;
  // The step the reader's window moves in (2^its window scale; 1 when
  // unscaled or not told): an ACK that covers fewer new bytes than this
  // may leave the window as it was though they sit unread.
  std::size_t window_unit = 1;
  // The least round trip the path showed lately (tcpi_min_rtt); zero when
  // not told.
  std::chrono::microseconds round_trip{0};
  [[nodiscard]] std::size_t total() const { return in_flight + unread; }
};

// What one look at the kernel gave.
struct KernelFacts {
  std::size_t send_queue = 0;    // SIOCOUTQ: unsent + unacknowledged bytes
  std::uint32_t peer_window = 0;  // the window the peer advertised last
  std::size_t unsent = 0;         // of send_queue, bytes not sent yet (tcpi_notsent_bytes)
  std::uint64_t delivery_rate = 0;  // bytes/s (tcpi_delivery_rate)
  std::uint32_t min_rtt_us = 0;     // tcpi_min_rtt
  bool rate_app_limited = true;     // tcpi_delivery_rate_app_limited
  std::uint8_t window_scale = 0;    // tcpi_snd_wscale: the peer's window is in units of 2^this
};

// Where a LatencyGate learns its reader's backlog: the socket itself
// (PeerBacklog), or one stream's share of a socket that many streams
// share (an HTTP/2 stream: session/h2_stream_backlog.hpp). The bytes it
// counts are the ones written through the gate since it was made.
class BacklogSource {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~BacklogSource() = default;
  // The backlog now; nullopt when it cannot be told (the gate then holds
  // nothing back).
  [[nodiscard]] virtual std::optional<Backlog> sample(Clock::time_point now) = 0;
  // The reader's segments carry bytes besides the gate's data (an HTTP/2
  // stream's: frame headers, its probes and notices in the same DATA):
  // a whole write, not its data alone, is what a segment may be.
  [[nodiscard]] virtual bool shares_segments() const { return false; }
};

class PeerBacklog final : public BacklogSource {
 public:
  // How long a largest window is remembered without being seen again: the
  // estimate forgets it after one to two of these.
  static constexpr std::chrono::milliseconds kWindowMemory{1000};
  // How long the window must stay the same, nothing in flight, before a
  // largest window not seen again may be forgotten: longer than a reader
  // that keeps reading (several times a second) leaves it be.
  static constexpr std::chrono::milliseconds kRest{250};

  // Reads `fd`, which it does not own, on each sample(); -1 reads nothing
  // (tests feed estimate() instead).
  explicit PeerBacklog(int fd) : fd_(fd) {}

  // The backlog now, from one getsockopt (and one ioctl while bytes are
  // unacknowledged or unsent). nullopt when the kernel does not tell what
  // the estimate needs: not a TCP socket, not Linux, or a TCP_INFO without
  // the peer's window.
  [[nodiscard]] std::optional<Backlog> sample(Clock::time_point now) override;

  // The arithmetic of sample(), given what the kernel said at `now`.
  [[nodiscard]] Backlog estimate(const KernelFacts& facts, Clock::time_point now);

  // The largest window the estimate holds now (0 before the first sample).
  [[nodiscard]] std::uint32_t largest_window() const {
    return current_max_ > previous_max_ ? current_max_ : previous_max_;
  }

 private:
  void note_rest(const KernelFacts& facts, Clock::time_point now);
  void remember_window(std::uint32_t window, Clock::time_point now);

  int fd_;
  std::uint32_t current_max_ = 0;   // largest window seen in this memory period
  std::uint32_t previous_max_ = 0;  // in the one before, or kept from before it (above)
  Clock::time_point period_end_{};
  bool at_rest_ = false;            // the last sample had nothing in flight
  std::uint32_t rest_window_ = 0;   // its window
  Clock::time_point rest_since_{};  // since when the samples have been at rest with that window
  bool rested_ = false;             // at rest for kRest in this memory period
};

}  // namespace sluice::conn
