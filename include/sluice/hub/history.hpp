// Owns: History, one topic's recent events kept for replay (Last-Event-ID,
// a WebSocket `since`), bounded by a count and by bytes. The frames are the
// same ones subscribers were sent, so history costs pool blocks, not copies.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sluice/buf/frame.hpp"
#include "sluice/conn/frame_ring.hpp"

namespace sluice::hub {

class History {
 public:
  // max_events 0 keeps nothing.
  History(std::size_t max_events, std::size_t max_bytes);

  // Appends the event with sequence `seq` (one more than the last one) and
  // conflation key `key`, evicting the oldest events that no longer fit.
  void push(std::uint64_t seq, std::uint64_t key, buf::FrameRef frame);
  // Gives back the oldest event's blocks; false when empty.
  bool evict_oldest();

  [[nodiscard]] bool empty() const { return ring_.empty(); }
  [[nodiscard]] std::size_t size() const { return ring_.size(); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  // Sequence of the oldest kept event; meaningful when !empty().
  [[nodiscard]] std::uint64_t oldest_seq() const { return ring_.at(0).tag.id; }
  // The i-th kept event, oldest first.
  [[nodiscard]] const conn::QueuedFrame& at(std::size_t i) const { return ring_.at(i); }

 private:
  conn::detail::FrameRing ring_;
  std::size_t max_events_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
};

}  // namespace sluice::hub
