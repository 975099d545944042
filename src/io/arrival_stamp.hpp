// Owns: the kernel's receive timestamps on a TCP socket (SO_TIMESTAMPNS):
// when the bytes a read takes reached this host, whatever the loop was
// doing then.
//
// A loop that stalls (another process on its core, a long turn of its own
// after the ask went) reads an answer that came in time only once the
// stall is over. Judged by when it was read, a reader that kept up looked
// late: the latency gate took it for lagging and held it to window_frames
// frames while `latest` replaced the rest. Judged by when it came, it is
// in time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "io/loop.hpp"

namespace sluice::io {

// Turns the timestamps on for `fd`; false when the kernel refuses.
[[nodiscard]] bool stamp_arrivals(int fd);

// recv() of up to `room` bytes into `out` on a socket with the timestamps
// on (stamp_arrivals), retried on EINTR. A read that returns bytes notes in
// `arrival` when the last segment it took reached this host (nanoseconds of
// CLOCK_REALTIME, the timestamps' clock), or 0 when the kernel gives no
// stamp (the first packets after timestamps are turned on on a host where
// none were, which the kernel enables a moment later). A segment that came
// out of order keeps its own stamp, so after a loss the stamp may be
// earlier than the retransmitted bytes: a reader's answer delayed by its
// own lost segment may count as in time. Returns the bytes read, 0 at the
// peer's end of stream, or -errno; `arrival` is left as it was then.
[[nodiscard]] long recv_stamped(int fd, char* out, std::size_t room, std::int64_t& arrival);

// Whether bytes wait unread on `fd` (timestamps on), without taking any:
// true with `arrival` noted as recv_stamped would for the first of them,
// false when none wait or the socket has failed or ended. The kernel merges
// a segment into the one before it while both wait, and the merged one
// keeps the newer stamp: the arrival is the first segment's or a later
// one's, never earlier than the oldest bytes came (0 without a stamp).
[[nodiscard]] bool peek_arrival(int fd, std::int64_t& arrival);

// `arrival` (as recv_stamped notes it) on the loop's clock, and no later
// than `now`, the loop's time this tick: `now` when nothing was noted. The
// realtime clock is read before the steady one, so a preemption between
// the two makes the arrival later, never earlier. A step of the realtime
// clock between the arrival and this call moves it by the step; backwards
// the loop's own time stands.
[[nodiscard]] Loop::Clock::time_point arrived_at(std::int64_t arrival, Loop::Clock::time_point now);

}  // namespace sluice::io
