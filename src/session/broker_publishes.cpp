#include "session/broker_publishes.hpp"

namespace sluice::session {

broker::PublishStatus BrokerPublishes::publish(std::string_view topic, const broker::EventFields& event,
                                               PublishWaiter& waiter, std::uint32_t& ticket) {
  if (free_.empty()) {
    ticket = static_cast<std::uint32_t>(waiters_.size());
    waiters_.push_back(nullptr);
  } else {
    ticket = free_.back();
    free_.pop_back();
  }
  // Set before the send, so that an answer given during it still finds
  // its waiter.
  waiters_[ticket] = &waiter;
  const broker::PublishStatus status = broker_.publish(topic, event, *this, ticket);
  if (status != broker::PublishStatus::ok) {
    waiters_[ticket] = nullptr;
    free_.push_back(ticket);
  }
  return status;
}

void BrokerPublishes::cancel(std::uint32_t ticket) {
  if (ticket < waiters_.size()) waiters_[ticket] = nullptr;
}

void BrokerPublishes::on_published(std::uint64_t tag, broker::PublishStatus status, broker::StreamId id,
                                   std::string_view error) {
  const auto ticket = static_cast<std::uint32_t>(tag);
  if (ticket >= waiters_.size()) return;
  PublishWaiter* waiter = waiters_[ticket];
  waiters_[ticket] = nullptr;
  free_.push_back(ticket);
  if (waiter != nullptr) waiter->published(ticket, status, id, error);
}

BrokerRefusal broker_refusal(broker::PublishStatus status) {
  switch (status) {
    case broker::PublishStatus::ok:
      return {200, "ok"};
    case broker::PublishStatus::unavailable:
      return {503, "broker unavailable: Redis is not reachable, retry later"};
    case broker::PublishStatus::misplaced:
      return {503, "broker misconfigured: this node lists the Redis instances in another order than the others "
                   "(broker.url; /healthz says which)"};
    case broker::PublishStatus::busy:
      return {503, "broker busy: too many publishes wait for Redis (broker.max_pending), retry later"};
    case broker::PublishStatus::too_large:
      return {413, "event too large for the broker (broker.max_pending_bytes)"};
    case broker::PublishStatus::refused:
      return {503, "broker refused the event"};
    case broker::PublishStatus::unknown:
      return {504, "no answer from Redis in time: the event may or may not have been published"};
  }
  return {503, "broker unavailable"};
}

}  // namespace sluice::session
