// Owns: FrameRing, the FIFO behind each lane of an OutQueue, and
// FrameLabel, what the owner of a queue says a data frame is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "buf/frame.hpp"

namespace sluice::conn {

// Opaque to the queue: it keeps a label with its frame and hands it back
// when the frame is looked at, dropped or replaced, and never reads it
// (delivery/ puts there which event of which topic a frame is). A frame
// queued without one has the zero label.
struct FrameLabel {
  std::uint64_t words[3] = {0, 0, 0};
};

struct QueuedFrame {
  buf::FrameRef frame;
  FrameLabel label;
};

namespace detail {

// A FIFO in a ring that takes `initial` slots at its first push and doubles
// up to `max` slots, so a connection that never queued anything holds no
// slots, an idle one a few, and a busy one stops allocating once it has
// seen its deepest queue; a quiet one may give them back (give_back()).
// Or, on a device with no heap after start-up, a ring in the caller's
// memory, whose size is its max.
class FrameRing {
 public:
  FrameRing(std::size_t initial, std::size_t max);
  // `slots` is the caller's, kept alive as long as the ring (at least one).
  explicit FrameRing(std::span<QueuedFrame> slots);

  // Appends; the caller checks first that size() < max().
  void push(QueuedFrame&& entry);
  [[nodiscard]] QueuedFrame pop();
  // Takes out the i-th entry from the front (i < size()); the ones behind
  // it move up.
  [[nodiscard]] QueuedFrame remove(std::size_t i);
  // The i-th entry from the front; i < size().
  [[nodiscard]] const QueuedFrame& at(std::size_t i) const { return slots_[slot(i)]; }
  [[nodiscard]] QueuedFrame& at(std::size_t i) { return slots_[slot(i)]; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t max() const { return max_; }
  // The slots it has now, used or not.
  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  void clear();
  // Empty: the heap slots go, and the next push takes `initial` again.
  // Slots in the caller's memory stay.
  void give_back();

 private:
  void grow();
  // The slot of the i-th entry (i <= size() < capacity_): a compare, not a
  // division, on the path every queued frame takes.
  [[nodiscard]] std::size_t slot(std::size_t i) const {
    const std::size_t at = head_ + i;
    return at >= capacity_ ? at - capacity_ : at;
  }

  std::unique_ptr<QueuedFrame[]> owned_;  // empty when the slots are the caller's
  QueuedFrame* slots_ = nullptr;
  std::size_t initial_;
  std::size_t capacity_ = 0;
  std::size_t max_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace detail
}  // namespace sluice::conn
