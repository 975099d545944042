// Owns: TopicBook, the topics every loop shares: each topic's id counter, its
// history of recent events, and which loops have subscribers for it.
//
// Publishing, from any thread: under the topic's lock the event gets the
// next id, is encoded once as SSE (and kept as a payload for the WebSocket
// forms) and appended to the history; then each loop with subscribers is
// told, once, that the topic has news. A loop reads the events it has not
// delivered yet straight from the history, in id order, so no per-event
// queue between threads can overflow, and a loop that falls further behind
// than the history reaches knows exactly which ids it missed.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "buf/pool.hpp"
#include "hub/event_frames.hpp"
#include "hub/history.hpp"
#include "hub/hub_types.hpp"

namespace sluice::hub {

inline constexpr unsigned kMaxLoops = 64;
// Events each topic keeps at least, whatever history.max_events says: the
// loops read fan-out from the history, so it must span a loop's slowest tick.
inline constexpr std::size_t kMinKeptEvents = 64;

// The first character of the server's own topic names: outside the client
// alphabet (proto/topic_name.hpp).
inline constexpr char kServerTopicMark = '$';

struct TopicRecord {
  TopicRecord(std::string_view topic, const HubLimits& limits);

  const std::string name;
  std::mutex mutex;  // guards the fields below it
  std::uint64_t next_id = 1;
  History history;
  std::uint64_t loop_mask = 0;          // loops with subscribers
  std::size_t subscribers = 0;          // across every loop
  std::array<std::size_t, kWsForms> form_subscribers{};  // by ws_index(): forms in use, built at publish
  std::array<std::atomic<bool>, kMaxLoops> pending{};  // loop told, not yet drained
  // The last seq each following loop has handed over; publish() refuses to
  // push an event out of the history before every loop has delivered it.
  std::array<std::atomic<std::uint64_t>, kMaxLoops> delivered{};
  // Loops holding a publisher that was told `busy`: the loop that delivers
  // next wakes them, so a held publisher waits for room, not for a timer.
  std::atomic<std::uint64_t> waiting_publishers{0};
};

// A loop that must be told when a topic it follows has new events. Called
// from the publishing thread, at most once until the loop drains the topic.
class TopicWatcher {
 public:
  virtual void topic_changed(TopicRecord* record) = 0;
  // A loop delivered events of a topic this loop's publishers wait on.
  virtual void room_made() = 0;

 protected:
  ~TopicWatcher() = default;
};

class TopicBook {
 public:
  // `pool` must outlive the book. `epoch` names this run in every event id.
  TopicBook(buf::Pool& pool, const HubLimits& limits, std::string epoch);
  ~TopicBook();
  TopicBook(const TopicBook&) = delete;
  TopicBook& operator=(const TopicBook&) = delete;

  // Before serving: the watcher of loop `loop` (< kMaxLoops).
  void set_watcher(unsigned loop, TopicWatcher* watcher) { watchers_[loop] = watcher; }

  // Any thread. Never allocates once the topic exists. The WebSocket forms
  // in use are built with `scratch`, the caller's (a loop passes its own);
  // without one, the book lends one of its own for the call.
  [[nodiscard]] PublishResult publish(std::string_view topic, const Message& message,
                                      FrameScratch* scratch = nullptr);
  // Any thread: the server's own topics, named kServerTopicMark + a valid
  // name ("$sys"). publish() refuses those names, so no client can write
  // there; a client may follow one (a subscription can name it).
  [[nodiscard]] PublishResult publish_server(std::string_view topic, const Message& message);
  // Any thread: fn(name, subscribers, events published) for every topic,
  // each read under its topic's lock, held only for the read.
  void sample_topics(const std::function<void(std::string_view, std::size_t, std::uint64_t)>& fn) const;
  // Any thread. Records are never removed, so the pointer stays valid.
  [[nodiscard]] TopicRecord* find_or_create(std::string_view topic, HubStatus& status);
  // Any thread; nullptr when there is no such topic.
  [[nodiscard]] TopicRecord* find(std::string_view topic) const;
  // Loop `loop` holds a publisher of `record` that was refused as busy; it
  // is told by room_made() once any loop has delivered more of the topic.
  void wait_for_room(TopicRecord& record, unsigned loop);
  // Called by a loop after it delivered events of `record`.
  void wake_waiting_publishers(TopicRecord& record);

  [[nodiscard]] const std::string& epoch() const { return epoch_; }
  [[nodiscard]] const HubLimits& limits() const { return limits_; }
  [[nodiscard]] buf::Pool& pool() { return pool_; }
  // Writes "EPOCH:SEQ" into `out` (kMaxIdText bytes); returns its length.
  std::size_t format_id(std::uint64_t seq, char* out) const;
  [[nodiscard]] std::size_t topic_count() const;

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  [[nodiscard]] PublishResult publish_any(std::string_view topic, const Message& message, FrameScratch* scratch);
  [[nodiscard]] bool encode(const TopicRecord& record, std::uint64_t id, const Message& message,
                            FrameScratch* scratch, KeptEvent& out);
  [[nodiscard]] bool encode_ws_forms(const TopicRecord& record, std::string_view id, FrameScratch& scratch,
                                     KeptEvent& out);
  void notify_loops(TopicRecord& record, std::uint64_t loop_mask);
  [[nodiscard]] static bool a_loop_lags(const TopicRecord& record, std::size_t bytes, bool evicting);
  [[nodiscard]] static bool evict_delivered(TopicRecord& record);
  [[nodiscard]] bool evict_in_turn(TopicRecord& self);

  buf::Pool& pool_;
  HubLimits limits_;
  std::string epoch_;
  mutable std::shared_mutex topics_mutex_;
  std::unordered_map<std::string, std::unique_ptr<TopicRecord>, NameHash, std::equal_to<>> topics_;
  std::vector<TopicRecord*> topics_in_order_;  // topics are never removed, so indexes are stable
  std::atomic<std::size_t> evict_cursor_{0};
  std::array<TopicWatcher*, kMaxLoops> watchers_{};
  ScratchPool scratch_pool_;  // for publishers that bring no scratch of their own
};

}  // namespace sluice::hub
