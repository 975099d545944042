#include "embedded/event_history.hpp"

namespace sluice::embedded {

void EventHistory::record(std::uint64_t id, std::string_view topic, std::string_view data) {
  if (records_.empty() || data.size() > kHistoryDataBytes || topic.size() > kMaxTopicBytes) {
    lost_through_ = id;
    return;
  }
  HistoryRecord& r = records_[next_];
  if (count_ == records_.size()) {
    lost_through_ = r.id;
  } else {
    ++count_;
  }
  next_ = (next_ + 1) % records_.size();
  r.id = id;
  r.topic_size = static_cast<std::uint8_t>(topic.size());
  r.data_size = static_cast<std::uint8_t>(data.size());
  topic.copy(r.topic, topic.size());
  data.copy(r.data, data.size());
}

}  // namespace sluice::embedded
