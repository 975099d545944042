// Owns: FrameRing, the FIFO behind each lane of an OutQueue, and FrameTag,
// what a queued data frame is (which event of which topic), so that a
// slow-consumer policy can drop or conflate it and say which ids it lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "buf/frame.hpp"

namespace sluice::conn {

struct FrameTag {
  std::uint64_t id = 0;     // the event id within its topic
  std::uint32_t topic = 0;  // the subscriber's own index for the topic
  std::uint64_t key = 0;    // conflation key: 0 for "the whole topic"
};

struct QueuedFrame {
  buf::FrameRef frame;
  FrameTag tag;
};

namespace detail {

// A FIFO in a ring that starts small and doubles up to `max` slots, so an
// idle connection holds a few slots and a busy one stops allocating once it
// has seen its deepest queue.
class FrameRing {
 public:
  FrameRing(std::size_t initial, std::size_t max);

  // Appends; the caller checks first that size() < max().
  void push(QueuedFrame&& entry);
  [[nodiscard]] QueuedFrame pop();
  // The i-th entry from the front; i < size().
  [[nodiscard]] const QueuedFrame& at(std::size_t i) const { return slots_[(head_ + i) % capacity_]; }
  [[nodiscard]] QueuedFrame& at(std::size_t i) { return slots_[(head_ + i) % capacity_]; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t max() const { return max_; }
  void clear();

 private:
  void grow();

  std::unique_ptr<QueuedFrame[]> slots_;
  std::size_t capacity_;
  std::size_t max_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace detail
}  // namespace sluice::conn
