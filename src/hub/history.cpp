#include "hub/history.hpp"

#include <algorithm>
#include <utility>

#include "proto/ws_encoder.hpp"

namespace sluice::hub {

namespace {
constexpr std::size_t kInitialSlots = 16;
}

std::size_t KeptEvent::payload_size() const {
  if (payload) return payload.size();
  return 1 + proto::ws::unmasked_payload_size(ws[ws_index(WireForm::ws_message)].size());
}

std::size_t KeptEvent::data_size() const {
  if (!payload) return payload_size() - 1;
  unsigned char name_length = 0;
  (void)payload.copy_to(reinterpret_cast<char*>(&name_length), 1);
  const std::size_t framing = 1 + static_cast<std::size_t>(name_length);
  return payload.size() > framing ? payload.size() - framing : 0;
}

History::History(std::size_t max_events, std::size_t max_bytes)
    : slots_(std::make_unique<Slot[]>(kInitialSlots)),
      capacity_(kInitialSlots),
      max_events_(std::max<std::size_t>(max_events, 1)),
      max_bytes_(max_bytes) {}

void History::push(KeptEvent&& event) {
  const std::size_t bytes = event.bytes();
  while (must_evict(size_, bytes_, bytes)) evict_oldest();
  if (size_ == capacity_) grow();
  bytes_ += bytes;
  Slot& slot = slots_[slot_of(size_)];
  slot.event = std::move(event);
  slot.bytes = bytes;
  ++size_;
}

bool History::evict_oldest() {
  if (size_ == 0) return false;
  Slot& oldest = slots_[head_];
  bytes_ -= oldest.bytes;
  oldest.event.release_frames();
  head_ = slot_of(1);
  --size_;
  return true;
}

std::size_t History::first_after(std::uint64_t seq) const {
  std::size_t low = 0;
  std::size_t high = size_;
  while (low < high) {
    const std::size_t mid = low + (high - low) / 2;
    if (at(mid).seq > seq) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

void History::grow() {
  const std::size_t capacity = std::min(capacity_ * 2, std::max(max_events_, capacity_ + 1));
  auto slots = std::make_unique<Slot[]>(capacity);
  for (std::size_t i = 0; i < size_; ++i) slots[i] = std::move(slots_[slot_of(i)]);
  slots_ = std::move(slots);
  capacity_ = capacity;
  head_ = 0;
}

}  // namespace sluice::hub
