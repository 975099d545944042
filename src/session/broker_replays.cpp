#include "session/broker_replays.hpp"

#include <algorithm>

namespace sluice::session {

std::uint32_t BrokerReplays::take_ticket() {
  if (free_.empty()) {
    waiters_.push_back(nullptr);
    return static_cast<std::uint32_t>(waiters_.size() - 1);
  }
  const std::uint32_t ticket = free_.back();
  free_.pop_back();
  return ticket;
}

broker::ReplayStart BrokerReplays::fetch(std::string_view topic, broker::StreamId after, broker::StreamId upto,
                                         ReplayWaiter& waiter, std::uint32_t& ticket) {
  if (upto.epoch == after.epoch && upto.seq > after.seq) upto.seq = std::min(upto.seq, after.seq + page_);
  ticket = take_ticket();
  // Behind pages that wait already, in turn.
  broker::ReplayStart start =
      queued_.empty() ? broker_.replay(topic, after, upto, *this, ticket) : broker::ReplayStart::busy;
  if (start == broker::ReplayStart::busy && on_wire_ > 0) {
    queued_.push_back({std::string(topic), after, upto, ticket});
    start = broker::ReplayStart::accepted;
  } else if (start == broker::ReplayStart::accepted) {
    ++on_wire_;
  }
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
  --on_wire_;
  const auto ticket = static_cast<std::uint32_t>(tag);
  ReplayWaiter* waiter = nullptr;
  if (ticket < waiters_.size()) {
    waiter = waiters_[ticket];
    waiters_[ticket] = nullptr;
    free_.push_back(ticket);
  }
  // The pages that waited go before the next page this answer leads to.
  send_queued();
  if (waiter != nullptr) waiter->replayed(ticket, answer);
}

// A page that cannot be sent for another reason than room (Redis gone) is
// answered as failed, as a page on the wire would have been.
void BrokerReplays::send_queued() {
  while (!queued_.empty()) {
    Queued& q = queued_.front();
    if (waiters_[q.ticket] == nullptr) {  // cancelled while it waited
      free_.push_back(q.ticket);
      queued_.pop_front();
      continue;
    }
    const broker::ReplayStart start = broker_.replay(q.topic, q.after, q.upto, *this, q.ticket);
    if (start == broker::ReplayStart::busy && on_wire_ > 0) return;
    const std::uint32_t ticket = q.ticket;
    queued_.pop_front();
    if (start == broker::ReplayStart::accepted) {
      ++on_wire_;
      continue;
    }
    ReplayWaiter* waiter = waiters_[ticket];
    waiters_[ticket] = nullptr;
    free_.push_back(ticket);
    waiter->replayed(ticket, {broker::ReplayStatus::failed, {}, nullptr, replay_refusal(start)});
  }
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
