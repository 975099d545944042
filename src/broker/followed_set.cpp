#include "broker/followed_set.hpp"

#include <algorithm>

namespace sluice::broker {

namespace {
constexpr std::size_t kMaxSlots = (std::size_t{1} << 24) - 1;
}

FollowedSet::FollowedSet(std::size_t max_topics) : max_(std::min(max_topics, kMaxSlots)) {}

Followed* FollowedSet::add(std::string_view topic) {
  if (index_.size() >= max_ || index_.contains(topic)) return nullptr;
  std::size_t index = slots_.size();
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    slots_.emplace_back();
  }
  const auto [it, inserted] = index_.emplace(std::string(topic), index);
  slots_[index] = Followed{&it->first, next_serial_++};
  return &slots_[index];
}

void FollowedSet::remove(std::string_view topic) {
  const auto it = index_.find(topic);
  if (it == index_.end()) return;
  slots_[it->second] = Followed{nullptr, 0};
  free_.push_back(it->second);
  index_.erase(it);
}

Followed* FollowedSet::find(std::string_view topic) {
  const auto it = index_.find(topic);
  return it == index_.end() ? nullptr : &slots_[it->second];
}

Followed* FollowedSet::at(std::size_t index, std::uint32_t serial) {
  const bool same = index < slots_.size() && slots_[index].topic != nullptr && slots_[index].serial == serial;
  return same ? &slots_[index] : nullptr;
}

}  // namespace sluice::broker
