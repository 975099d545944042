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
// - The largest window grows as the peer's buffer autotunes upwards, and
//   the peer's kernel may also shrink the buffer its window offers (Linux
//   does under memory pressure, and a small buffer full of small segments
//   is under it). The window's right edge (bytes acknowledged + window)
//   never moves back, and moves forward only when the reader reads (or its
//   buffer grows), and then only once the window has fallen below what
//   the shrunk buffer offers. Until then a reader that has read everything
//   shows a narrower window than its largest, with an edge that stands
//   still: by the window alone, the bytes it read are unread for good, and
//   a gate holds its next frame, which would take the window down to where
//   the edge moves again. A gate's probes do not help: each takes the
//   window down by its own bytes, not far enough.
// - So once the edge has stood still for kRest, with only probes
//   acknowledged and nothing more than a probe on its way (longer than a
//   reader that keeps reading leaves it: several reads a second), the
//   estimate asks for padding (Backlog::padding): bytes the reader's
//   application skips (SSE comments, unsolicited WebSocket pongs), which
//   take the window down as a frame would, without a frame. Each padding
//   without a read between asks for twice the one before (kFirstPadding
//   up to 64 KiB, two of the window's steps at least; never more than the
//   window is asked, and a gate sends less than a padding frame more), a
//   rest after the last. Once padding has filled the difference,
//   the reader's next read moves the edge: the window it offers then
//   becomes the largest, and the estimate is exact again. A read shows as
//   an edge that moved while only probes arrived, or, after padding, as
//   data acknowledged with the window left as it was (the reader read it
//   before its kernel's delayed ACK went).
// - Padding is held to a budget per socket: kPaddingBurst, then the
//   configured bytes a second (0: none). A reader that reads every few
//   seconds through an autotuned buffer stalls between its reads as a
//   narrowed one does, and its buffer grows as padding comes: without the
//   budget a reader of 1 KiB frames every 3 s was sent 2.7-3.1 MB of
//   padding in 30 s, for 67-77 frames. An ask waits until the budget covers the
//   least useful padding, and is cut to what the budget holds; what the
//   gate sends past it (less than a padding frame) is owed.
// - Padding is also paid for by what else the reader was sent (its
//   credit): a byte for every kDataPerPaddingByte bytes acknowledged that
//   were not padding, and kPaddingCreditPerSecond by the clock, so that a
//   reader held for good is padded again in time (a quarter of what the
//   clock alone allows by default). A reader that takes
//   only so many bytes a second (an application that reads a few KiB and
//   sleeps) reads padding in place of frames: reading 4 KiB every 500 ms,
//   with padding bought by the clock alone it read 6 frames and 13 KB of
//   padding in 4 s, each frame 2.8-3.3 s old.
// - A window back at its largest shows nothing unread, read or grown:
//   the next stand-still starts again from the least padding.
// - A reader that reads now and then rests between its reads: the rest
//   before padding is twice the time its window last showed bytes unread
//   before it came back to its largest, from kRest up to kLongestRest. The
//   reader above, reading every 500 ms, is then not padded between its
//   reads. A read that padding showed in a narrowed buffer teaches no
//   wait (that time was ours), and one quick read takes only a quarter
//   off the rest.
// - A reader that stopped looks the same, and its buffer fills with
//   padding instead of frames: readers of 1 KiB frames stopped for 5-20 s
//   held 10-14 frames where, trusting the window after each rest, they
//   held 14-29, and read the newest frame after the padding. A buffer that
//   grows by just the padding that came looks like a read, and lets a
//   window's frames in; its growth ends at the buffer's size.
// - A reader that reads all the time but never empties its buffer (a 2 KiB
//   read takes one 1 KiB frame and most of the next) moves its edge with
//   every read that frees a segment: its largest window is kept, and the
//   frame it holds counts as unread. Reads of less than a segment may not
//   move it for kRest, and such a reader is sent padding it reads first.
#pragma once

#include <algorithm>
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
  // Bytes the reader's application ignores (a gate's padding) that the
  // reader should be sent now: its window's edge stood still while its
  // window showed bytes unread (PeerBacklog), within the padding budget.
  // 0: none. What goes is told back (BacklogSource::padded()).
  std::size_t padding = 0;
  // What the reader's kernel takes now: the window it offers, less what is
  // on its way to it. 0 when not told.
  std::size_t room = 0;
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
  std::uint64_t acked = 0;          // tcpi_bytes_acked: bytes the peer acknowledged since the connection began
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
  // `bytes` of the padding a sample asked for were queued at `now`: they
  // are spent from the socket's padding budget and credit.
  virtual void padded(std::size_t bytes, Clock::time_point now) = 0;
};

class PeerBacklog final : public BacklogSource {
 public:
  // A sample this long after the one before starts the estimate afresh:
  // the reader had all that time to read.
  static constexpr std::chrono::milliseconds kWindowMemory{1000};
  // How long the window's right edge must stand still before the window it
  // shows counts as the largest (above).
  static constexpr std::chrono::milliseconds kRest{250};
  // The longest rest a reader that reads now and then is given (above),
  // and the longest gap between two looks that times its wait.
  static constexpr std::chrono::milliseconds kLongestRest{2000};
  static constexpr std::chrono::milliseconds kTimedLookGap{50};
  // The most bytes acknowledged between two samples that may be a gate's
  // probe: one or two bytes (an SSE blank line, an empty WebSocket ping),
  // in an HTTP/2 frame (9 more) and a TLS record (up to 29 more). More is
  // data, which the reader may not have read: the rest starts again.
  static constexpr std::uint64_t kProbeBytes = 64;
  // The padding a standing edge first asks for; each padding without a
  // read between asks for twice the one before, up to kFirstPadding << this.
  static constexpr std::size_t kFirstPadding = 512;
  static constexpr unsigned kMostPaddingDoublings = 7;
  // The padding budget as it starts, and the most it holds: the largest
  // padding asked for.
  static constexpr std::size_t kPaddingBurst = kFirstPadding << kMostPaddingDoublings;
  static constexpr std::size_t kDefaultPaddingPerSecond = 16 << 10;
  // The most a budget earns a second (policy.latest_padding_bytes_per_s's
  // range): more is taken as this.
  static constexpr std::size_t kMostPaddingPerSecond = 1 << 20;
  // A socket's padding credit (above): it starts at kFirstPaddingCredit,
  // earns a byte for every kDataPerPaddingByte bytes of other data
  // acknowledged, and by the clock kPaddingCreditPerSecond, or the least
  // padding the reader's window shows every kLongestRest if that is more;
  // it holds kPaddingBurst at most.
  static constexpr std::size_t kDataPerPaddingByte = 4;
  static constexpr std::size_t kPaddingCreditPerSecond = 4096;
  static constexpr std::size_t kFirstPaddingCredit = 4096;

  // Reads `fd`, which it does not own, on each sample(); -1 reads nothing
  // (tests feed estimate() instead). Padding is asked for within
  // kPaddingBurst and then `padding_per_second` (0: none), and within the
  // socket's credit.
  explicit PeerBacklog(int fd, std::size_t padding_per_second = kDefaultPaddingPerSecond)
      : fd_(fd),
        padding_per_second_(std::min(padding_per_second, kMostPaddingPerSecond)),
        padding_budget_(padding_per_second > 0 ? static_cast<std::int64_t>(kPaddingBurst) : 0) {}

  // The backlog now, from one getsockopt (and one ioctl while bytes are
  // unacknowledged or unsent). nullopt when the kernel does not tell what
  // the estimate needs: not a TCP socket, not Linux, or a TCP_INFO without
  // the peer's window.
  [[nodiscard]] std::optional<Backlog> sample(Clock::time_point now) override;

  // The arithmetic of sample(), given what the kernel said at `now`.
  [[nodiscard]] Backlog estimate(const KernelFacts& facts, Clock::time_point now);
  void padded(std::size_t bytes, Clock::time_point now) override;
  // The padding the budget holds at `now`, by the clock alone.
  [[nodiscard]] std::size_t padding_budget(Clock::time_point now) const;
  // The padding what the reader was sent has paid for.
  [[nodiscard]] std::size_t padding_credit() const {
    return static_cast<std::size_t>(std::max<std::int64_t>(padding_credit_, 0) / kMicro);
  }

  // The largest window the estimate holds now (0 before the first sample).
  [[nodiscard]] std::uint32_t largest_window() const { return largest_; }

 private:
  void remember_window(const KernelFacts& facts, Clock::time_point now);
  static constexpr std::int64_t kMicro = 1'000'000;
  // The least padding worth sending: two steps of the window, or it may
  // not show it.
  [[nodiscard]] static std::size_t least_padding(std::size_t unit) { return std::max(kFirstPadding, 2 * unit); }
  void earn_padding_credit(std::uint64_t acked_by, std::size_t unit, Clock::time_point now);
  void note_wait(bool unread, Clock::time_point now, bool timed);
  // The budget at `now`, what is owed below 0.
  [[nodiscard]] std::int64_t budget_at(Clock::time_point now) const;
  [[nodiscard]] static std::size_t window_unit(const KernelFacts& facts);

  int fd_;
  std::uint32_t largest_ = 0;        // the largest window, as above
  Clock::time_point last_sample_{};
  std::uint64_t edge_ = 0;           // the window's right edge at the last sample
  std::uint64_t acked_ = 0;          // bytes acknowledged at the last sample
  Clock::time_point still_since_{};  // since when the edge stood there, and only probes were acknowledged
  unsigned padded_ = 0;              // paddings asked for since the reader last read
  std::size_t padding_ = 0;          // asked for at this sample
  std::size_t padding_per_second_;
  std::int64_t padding_budget_;      // at padding_budget_at_; below 0, sent past it and owed
  Clock::time_point padding_budget_at_{};
  std::int64_t padding_credit_ = kFirstPaddingCredit * kMicro;  // in millionths of a byte; below 0, owed
  std::uint64_t padding_unacked_ = 0;  // padding sent that the reader's kernel has not acknowledged yet
  std::optional<Clock::time_point> credit_at_;    // when padding_credit_ last earned by the clock
  std::optional<Clock::time_point> unread_since_;  // since when the window showed bytes unread
  Clock::duration rest_ = kRest;                   // how long the edge must stand still before padding
};

}  // namespace sluice::conn
