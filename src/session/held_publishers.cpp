#include "session/held_publishers.hpp"

#include <algorithm>

#include "session/topic_publisher.hpp"

namespace sluice::session {

void HeldPublishers::hold(TopicPublisher* publisher) {
  if (std::find(held_.begin(), held_.end(), publisher) == held_.end()) held_.push_back(publisher);
}

void HeldPublishers::release(TopicPublisher* publisher) {
  std::erase(held_, publisher);
  std::replace(retrying_.begin(), retrying_.end(), publisher, static_cast<TopicPublisher*>(nullptr));
}

void HeldPublishers::retry() {
  // A retry may hold its publisher again, or close its stream, so the list
  // is swapped out first.
  retrying_.swap(held_);
  held_.clear();
  for (std::size_t i = 0; i < retrying_.size(); ++i) {
    if (retrying_[i] != nullptr) retrying_[i]->retry();
  }
  retrying_.clear();
}

}  // namespace sluice::session
