// Owns: BrokerReplays, one loop's replays on their way from Redis: a
// subscription whose client resumes from an id older than this node keeps
// fetches the events it missed from the topic's stream, a page at a time,
// and waits for each page here. A subscription that ends first cancels its
// wait, so that a page arriving later reaches nobody.
//
// A page is at most broker.read_count events (and history.max_events):
// one XRANGE from the client's id to the page's last id, judged whole
// (StreamReplayer) before any of it is handed over. Slots are given back
// only when Redis answers, as for publishes, so a ticket is never reused
// while an answer for it may still come.
//
// Many clients resume at once when a node goes away and its clients land
// here: past broker.max_pending requests on the connection, a page waits
// in a queue and is sent as answers come, rather than its client being
// told a reset while Redis still has its events. The queue holds at most
// one page per parked subscription (so it is bounded by connections and
// topics per connection); with none of this loop's replays on the wire no
// answer would ever send it, so the page is refused then (broker-busy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker.hpp"

namespace sluice::session {

class ReplayWaiter {
 public:
  // On the loop's thread, once per page asked for and not cancelled;
  // `ticket` is the one fetch() gave.
  virtual void replayed(std::uint32_t ticket, const broker::ReplayAnswer& answer) = 0;

 protected:
  ~ReplayWaiter() = default;
};

class BrokerReplays final : private broker::ReplayHandler {
 public:
  // `page`: the most events one request asks for.
  BrokerReplays(broker::Broker& broker, std::size_t page) : broker_(broker), page_(page == 0 ? 1 : page) {}
  BrokerReplays(const BrokerReplays&) = delete;
  BrokerReplays& operator=(const BrokerReplays&) = delete;

  // Asks for the events after `after` up to `upto`, or the first page of
  // them. accepted: `waiter` hears the answer unless it cancels `ticket`
  // first; anything else is the answer now and nothing was sent.
  [[nodiscard]] broker::ReplayStart fetch(std::string_view topic, broker::StreamId after, broker::StreamId upto,
                                          ReplayWaiter& waiter, std::uint32_t& ticket);
  void cancel(std::uint32_t ticket);

 private:
  struct Queued {
    std::string topic;
    broker::StreamId after;
    broker::StreamId upto;
    std::uint32_t ticket;
  };

  [[nodiscard]] std::uint32_t take_ticket();
  void on_replay(std::uint64_t tag, const broker::ReplayAnswer& answer) override;
  void send_queued();

  broker::Broker& broker_;
  const std::size_t page_;
  std::vector<ReplayWaiter*> waiters_;  // by ticket; null: free or cancelled
  std::vector<std::uint32_t> free_;     // tickets whose answer has come
  std::deque<Queued> queued_;           // pages waiting for room on the connection
  std::size_t on_wire_ = 0;             // pages sent, not answered yet
};

// The reset reason a client is told when its replay could not be fetched.
[[nodiscard]] const char* replay_refusal(broker::ReplayStart start);

}  // namespace sluice::session
