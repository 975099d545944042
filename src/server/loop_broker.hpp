// Owns: LoopBroker, one loop's side of the Redis broker: its Broker (its
// connections to every Redis instance), the publishes its sessions wait
// on, and the reading of the topics this loop is the reader of; and
// BrokerNode, which tells each topic's reader loop when the node starts or
// stops following it.
//
// A topic is read by one loop of the node only, shard_of(topic, loops):
// the reader appends what it reads to the topic's history in the shared
// TopicBook under the id it came with, and every loop with subscribers
// delivers from there as it does for a local publish. Which loop follows a
// topic changes on any loop; the reader loop is asked to look (a set of
// names to check, under a mutex) and makes its reading match the book's
// state at that moment, so requests that cross need no order.
//
// A topic the history has no room for (a loop has yet to deliver what the
// event would push out) is held: the reader leaves it out of its reads
// until a loop has delivered more, and Redis keeps the backlog.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "broker/broker.hpp"
#include "hub/topic_book.hpp"
#include "io/loop.hpp"
#include "log/logger.hpp"
#include "metrics/loop_metrics.hpp"
#include "session/broker_publishes.hpp"
#include "session/broker_replays.hpp"

namespace sluice::server {

class LoopBroker final : private broker::StreamSink, private broker::PublishHandler {
 public:
  // `wake` makes the loop call run_checks() soon, from any thread.
  LoopBroker(io::Loop& loop, const broker::BrokerConfig& config, hub::TopicBook& book, unsigned index,
             std::function<void()> wake);
  ~LoopBroker();
  LoopBroker(const LoopBroker&) = delete;
  LoopBroker& operator=(const LoopBroker&) = delete;

  [[nodiscard]] session::BrokerPublishes& publishes() { return *publishes_; }
  [[nodiscard]] session::BrokerReplays& replays() { return *replays_; }
  // Any thread: whether this loop should read `topic` may have changed.
  void request_check(std::string_view topic);
  // The loop: acts on the requested checks.
  void run_checks();
  // The loop: a loop delivered events of a topic this reader holds.
  void room_made();
  // The loop's sweep: one warning when a Redis becomes unusable from this
  // loop and one line when all are back, not a line per attempt (`logger`
  // may be null); the broker's metrics brought up to date.
  void report(log::Logger* logger, metrics::LoopMetrics& metrics);
  // The loop's sweep: the keys Redis refused that some loop still follows
  // are tried again each broker.reconnect_max_ms, so that a key fixed while
  // its subscribers wait is read without a newcomer to ask for it.
  void retry_refused(io::Loop::Clock::time_point now);
  // Any thread (Server::publish): an event this loop publishes at its next
  // turn. False when `max` events wait already. Nobody hears Redis's
  // answer: the caller learnt only that the event was handed over.
  [[nodiscard]] bool forward(std::string_view topic, const broker::EventFields& event, std::size_t max);

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using NameSet = std::unordered_set<std::string, NameHash, std::equal_to<>>;

  struct Forwarded {
    std::string topic, data, event, key;
  };

  void check(const std::string& topic);
  void stop_reading(const std::string& topic);
  void retry_stopped();
  void on_published(std::uint64_t, broker::PublishStatus, broker::StreamId, std::string_view) override {}
  void on_started(std::string_view topic, broker::StreamId position) override;
  void on_continued(std::string_view topic, broker::StreamId newest) override;
  broker::Take on_event(std::string_view topic, const broker::StreamEntry& entry) override;
  void on_gap(std::string_view topic, broker::StreamId first, broker::StreamId last) override;
  void on_reset(std::string_view topic, const char* reason) override;
  void on_refused(std::string_view topic, std::string_view why) override;

  io::Loop& loop_;
  hub::TopicBook& book_;
  const unsigned index_;
  std::function<void()> wake_;
  std::unique_ptr<broker::Broker> broker_;
  std::unique_ptr<session::BrokerPublishes> publishes_;
  std::unique_ptr<session::BrokerReplays> replays_;
  NameSet reading_;                 // the topics this loop follows in Redis
  std::vector<std::string> held_;  // topics held for room, resumed on room_made()
  // Topics some loop follows that the reader could not follow
  // (broker-full), tried again whenever it lets a topic go. At most one
  // entry per followed topic (a topic no loop follows leaves it at its
  // check), so topics.max bounds it.
  NameSet stopped_;
  // Topics some loop follows whose key Redis refused: tried again at
  // retry_refused() and when a subscriber joins. Bounded as stopped_ is.
  NameSet refused_;
  const std::chrono::milliseconds retry_refused_every_;
  io::Loop::Clock::time_point refused_tried_{};  // the period's start: the first refusal, then each retry
  std::mutex checks_mutex_;
  NameSet checks_;    // asked for by any loop (at most one entry per topic)
  NameSet running_;   // the batch being checked, reused
  std::vector<Forwarded> forwarded_;  // Server::publish's events, under checks_mutex_
  std::vector<Forwarded> sending_;    // the batch being published, reused
  std::optional<broker::Unreachable> reported_;  // the Redis last logged as unreachable
  broker::BrokerCounts counted_;                 // what the metrics have been given
};

// The node's TopicFollower: routes each change to the topic's reader loop.
class BrokerNode final : public hub::TopicFollower {
 public:
  // Before serving: the loops' brokers, by loop index.
  void add_loop(LoopBroker& loop) { loops_.push_back(&loop); }
  void following_changed(std::string_view topic) override;
  void try_refused_again(std::string_view topic) override;
  [[nodiscard]] unsigned reader_loop(std::string_view topic) const;

 private:
  std::vector<LoopBroker*> loops_;
};

}  // namespace sluice::server
