// Owns: BrokerPublishes, one loop's publishes on their way to Redis: each
// session that publishes through the broker waits for its answer here, and
// a session that ends first cancels its wait, so that an answer arriving
// later reaches nobody rather than a session that is gone.
//
// A slot is taken per publish sent and given back when Redis's answer (or
// the connection's failure) comes, never when the session cancels: so a
// slot number is never reused while an answer for it may still arrive.
// The slots are bounded by what the broker lets wait (broker.max_pending
// per connection) and reused, so steady publishing allocates nothing here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "broker/broker.hpp"

namespace sluice::session {

class PublishWaiter {
 public:
  // On the loop's thread, once per publish that was sent and not
  // cancelled, with the ticket publish() gave it (a waiter with several
  // publishes under way tells them apart by it). `error` is Redis's text
  // when refused (valid during the call).
  virtual void published(std::uint32_t ticket, broker::PublishStatus status, broker::StreamId id,
                         std::string_view error) = 0;

 protected:
  ~PublishWaiter() = default;
};

class BrokerPublishes final : private broker::PublishHandler {
 public:
  explicit BrokerPublishes(broker::Broker& broker) : broker_(broker) {}
  BrokerPublishes(const BrokerPublishes&) = delete;
  BrokerPublishes& operator=(const BrokerPublishes&) = delete;

  // ok: `waiter` hears the outcome unless it cancels `ticket` first;
  // anything else is the answer now and nothing was sent.
  [[nodiscard]] broker::PublishStatus publish(std::string_view topic, const broker::EventFields& event,
                                              PublishWaiter& waiter, std::uint32_t& ticket);
  void cancel(std::uint32_t ticket);
  // broker::Broker::unreachable(): a Redis this loop cannot reach, or empty.
  [[nodiscard]] std::optional<broker::Unreachable> unreachable() const { return broker_.unreachable(); }

 private:
  void on_published(std::uint64_t tag, broker::PublishStatus status, broker::StreamId id,
                    std::string_view error) override;

  broker::Broker& broker_;
  std::vector<PublishWaiter*> waiters_;  // by ticket; null: free or cancelled
  std::vector<std::uint32_t> free_;      // tickets whose answer has come
};

// What a client is told for a publish the broker did not take: the HTTP
// status and one line.
struct BrokerRefusal {
  int http_status;
  const char* text;
};
[[nodiscard]] BrokerRefusal broker_refusal(broker::PublishStatus status);

}  // namespace sluice::session
