// Owns: LinkBottleneck, the arithmetic of one direction of the packet link
// (packet_link.hpp): when a packet that reaches the link now comes out at
// the far end, or that it is dropped. Sans-IO: times are given, not read.
//
// The link sends one packet at a time at its rate, in the order they came,
// and each then takes the one-way delay to arrive. Packets that find the
// link busy wait in its queue; one that would take the queue past its size
// is dropped, as a full router queue drops (and the sender's TCP finds out
// and backs off). With no rate, packets only take the delay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace sluice::bench {

class LinkBottleneck {
 public:
  // `rate` in bytes/s (0: unlimited), `delay_ns` one way, `queue` the bytes
  // that may wait for the link.
  LinkBottleneck(double rate, std::uint64_t delay_ns, std::size_t queue);

  // A packet of `bytes` reached the link at `now` (ns, any monotonic
  // origin, never earlier than the last call's): when it arrives at the
  // far end, or nullopt when the queue has no room for it.
  [[nodiscard]] std::optional<std::uint64_t> admit(std::uint64_t now, std::size_t bytes);

  // Bytes waiting for the link at `now`, the one it is sending included.
  [[nodiscard]] std::size_t queued(std::uint64_t now) const;

 private:
  double ns_per_byte_;          // 0: unlimited
  std::uint64_t delay_ns_;
  std::size_t queue_;
  std::uint64_t free_at_ = 0;   // when the link has sent every packet admitted so far
};

}  // namespace sluice::bench
