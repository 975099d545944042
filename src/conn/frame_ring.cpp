#include "conn/frame_ring.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace sluice::conn::detail {

FrameRing::FrameRing(std::size_t initial, std::size_t max)
    : initial_(std::clamp<std::size_t>(initial, 1, std::max<std::size_t>(max, 1))),
      max_(std::max<std::size_t>(max, 1)) {}

FrameRing::FrameRing(std::span<QueuedFrame> slots)
    : slots_(slots.data()), initial_(slots.size()), capacity_(slots.size()), max_(slots.size()) {}

void FrameRing::push(QueuedFrame&& entry) {
  assert(size_ < max_);
  if (size_ == capacity_) grow();
  slots_[slot(size_)] = std::move(entry);
  ++size_;
}

QueuedFrame FrameRing::pop() {
  QueuedFrame entry = std::move(slots_[head_]);
  head_ = slot(1);
  --size_;
  return entry;
}

QueuedFrame FrameRing::remove(std::size_t i) {
  QueuedFrame entry = std::move(at(i));
  for (std::size_t j = i; j + 1 < size_; ++j) at(j) = std::move(at(j + 1));
  --size_;
  at(size_) = QueuedFrame{};  // the slot the last entry left
  return entry;
}

void FrameRing::clear() {
  for (std::size_t i = 0; i < size_; ++i) at(i).frame.reset();
  head_ = 0;
  size_ = 0;
}

void FrameRing::give_back() {
  if (size_ != 0 || !owned_) return;
  owned_.reset();
  slots_ = nullptr;
  capacity_ = 0;
  head_ = 0;
}

void FrameRing::grow() {
  const std::size_t capacity = capacity_ == 0 ? initial_ : std::min(capacity_ * 2, max_);
  auto slots = std::make_unique<QueuedFrame[]>(capacity);
  for (std::size_t i = 0; i < size_; ++i) slots[i] = std::move(at(i));
  owned_ = std::move(slots);
  slots_ = owned_.get();
  capacity_ = capacity;
  head_ = 0;
}

}  // namespace sluice::conn::detail
