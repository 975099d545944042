#include "session/broker_replays.hpp"

#include <algorithm>

namespace sluice::session {

broker::ReplayStart BrokerReplays::fetch(std::string_view topic, broker::StreamId after, broker::StreamId upto,
                                         ReplayWaiter& waiter, std::uint32_t& ticket) {
  if (upto.epoch == after.epoch && upto.seq > after.seq) upto.seq = std::min(upto.seq, after.seq + page_);
  if (free_.empty()) {
    ticket = static_cast<std::uint32_t>(waiters_.size());
    waiters_.push_back(nullptr);
  } else {
    ticket = free_.back();
    free_.pop_back();
  }
  const broker::ReplayStart start = broker_.replay(topic, after, upto, *this, ticket);
  if (start != broker::ReplayStart::accepted) {
    free_.push_back(ticket);
    return start;
  }
  waiters_[ticket] = &waiter;
  return start;
}

void BrokerReplays::cancel(std::uint32_t ticket) {
  if (ticket < waiters_.size()) waiters_[ticket] = nullptr;
}

void BrokerReplays::on_replay(std::uint64_t tag, const broker::ReplayAnswer& answer) {
  const auto ticket = static_cast<std::uint32_t>(tag);
  if (ticket >= waiters_.size()) return;
  ReplayWaiter* waiter = waiters_[ticket];
  waiters_[ticket] = nullptr;
  free_.push_back(ticket);
  if (waiter != nullptr) waiter->replayed(ticket, answer);
}

const char* replay_refusal(broker::ReplayStart start) {
  switch (start) {
    case broker::ReplayStart::accepted:
      return nullptr;
    case broker::ReplayStart::unavailable:
      return "broker-unavailable";
    case broker::ReplayStart::busy:
      return "broker-busy";
    case broker::ReplayStart::other_epoch:
      return "other-epoch";
    case broker::ReplayStart::too_old:
      return "too-old";
  }
  return "broker-unavailable";
}

}  // namespace sluice::session
