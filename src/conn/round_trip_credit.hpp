// Owns: round_trip_credit(), how many of the bytes on their way to a
// reader its latency gate (conn/latency_gate.hpp) may count as already
// read, so that the next frame starts before the last one has arrived and
// the path between them stays busy.
//
// The gate lets the next frame go once the reader has consumed the ones
// before it. Sluice learns of a read only from the ACK after it, and the
// next frame then needs the path's delay to reach the reader: on a path
// whose round trip is long against a frame's time on it, that leaves the
// path idle for about a round trip per frame (64 KiB frames at 3 Mbit/s
// and a 40 ms round trip: 175 ms busy, 40 ms idle, a fifth of the path).
// Bytes the path delivers within one round trip, its bandwidth-delay
// product (the kernel's delivery rate times the smallest round trip it
// has seen), will have arrived by the time a frame written now could: the
// gate counts them as read, which keeps the path busy and adds at most
// that round trip to the next frame's age.
//
// Only bytes sent and not yet acknowledged earn the credit: unsent bytes
// wait on a window, and bytes the reader's kernel holds wait on the reader.
// And only while the rate the kernel measured last was the path's, not
// limited by what sluice gave it (the kernel marks such a sample
// app-limited): a reader of small frames paced by the gate sets that rate
// itself, and a credit from it would let frames queue at the reader. Over
// loopback nothing stays unacknowledged for long and the round trip is
// microseconds: next to no credit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::conn {

// What the kernel says of the path to a reader (Linux: TCP_INFO, SIOCOUTQ).
struct PathFacts {
  std::size_t unacknowledged = 0;  // bytes sent and not yet acknowledged
  std::uint64_t delivery_rate = 0;  // bytes per second the path delivered, the kernel's last sample
  std::uint32_t min_rtt_us = 0;     // the smallest round trip the kernel has seen, microseconds
  bool rate_app_limited = true;     // that sample was limited by what sluice sent, not by the path
};

// Of the unacknowledged bytes, those the gate may count as read: at most
// one round trip's worth at the delivery rate; none when the rate is not
// the path's or the kernel did not tell.
[[nodiscard]] std::size_t round_trip_credit(const PathFacts& path);

}  // namespace sluice::conn
