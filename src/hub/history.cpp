#include "sluice/hub/history.hpp"

#include <utility>

namespace sluice::hub {

namespace {
constexpr std::size_t kInitialSlots = 16;
}

History::History(std::size_t max_events, std::size_t max_bytes)
    : ring_(kInitialSlots, max_events), max_events_(max_events), max_bytes_(max_bytes) {}

void History::push(std::uint64_t seq, std::uint64_t key, buf::FrameRef frame) {
  if (max_events_ == 0 || frame.size() > max_bytes_) {
    while (evict_oldest()) {
    }
    return;
  }
  while (ring_.size() >= max_events_ || bytes_ + frame.size() > max_bytes_) evict_oldest();
  bytes_ += frame.size();
  ring_.push({std::move(frame), conn::FrameTag{seq, 0, key}});
}

bool History::evict_oldest() {
  if (ring_.empty()) return false;
  bytes_ -= ring_.pop().frame.size();
  return true;
}

}  // namespace sluice::hub
