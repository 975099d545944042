// Owns: Inbox, the hand-off between the client's reader thread and the
// application: a bounded lossless queue, and for Delivery::latest a bounded
// set of latest-value slots (see sluice/client/options.hpp for the rules).
//
// Events are swapped in and out, never copied: push() leaves in the
// reader's Event the buffers of a slot the application has emptied, and
// pop() leaves in the slot the buffers of the application's previous Event.
// Once every buffer has grown to the sizes in use, nothing is allocated per
// event. A latest slot allocates once, for its key.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sluice/client/event.hpp"
#include "sluice/client/options.hpp"

namespace sluice::client::detail {

class Inbox {
 public:
  explicit Inbox(const ClientOptions& options);

  // Reader side. Takes `event` (see above). Queue: waits while the queue is
  // full, so the reader stops reading and TCP pushes back. Latest: a message
  // overwrites its key's unread value; it waits only while every slot holds
  // an unread value. Returns false, taking nothing, once cancel() was called.
  bool push(Event& event);
  // Ends every wait of push() for good: the reader is stopping.
  void cancel();
  // No event will be pushed any more: pop() answers `ended` once all are taken.
  void close();

  // Application side, any thread. Moves the oldest waiting event into `out`
  // (notices and queued events first, then slots in the order they filled),
  // waiting up to `wait` for one.
  NextStatus pop(Event& out, std::chrono::milliseconds wait);

  // Fills the inbox's counters into `stats`.
  void fill_stats(ClientStats& stats) const;
  // Events taken in so far, notices included.
  [[nodiscard]] std::uint64_t pushed() const;

 private:
  struct Slot {
    std::string key;
    Event event;
    bool unread = false;
  };
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  bool push_queue(Event& event, std::unique_lock<std::mutex>& lock);
  bool push_latest(Event& event, std::unique_lock<std::mutex>& lock);
  bool find_slot(std::string_view key, std::size_t& index, std::unique_lock<std::mutex>& lock);
  [[nodiscard]] bool claim_slot(std::size_t& index);
  [[nodiscard]] bool queue_has_room(std::size_t size) const;
  bool take(Event& out);
  template <class HasRoom>
  void wait_for_room(std::unique_lock<std::mutex>& lock, HasRoom has_room);

  const Delivery delivery_;
  const std::size_t queue_bytes_;
  const std::size_t max_slots_;
  const std::function<std::string_view(const Event&)> latest_key_;

  mutable std::mutex mutex_;
  std::condition_variable readable_;  // the application waits for an event
  std::condition_variable room_;      // the reader waits for room

  std::vector<Event> ring_;  // the queue (Delivery::latest: its notices)
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::size_t bytes_ = 0;  // of the events in the queue and unread slots

  std::vector<Slot> slots_;
  std::unordered_map<std::string, std::size_t, KeyHash, std::equal_to<>> index_;
  std::vector<std::size_t> ready_;  // a ring of unread slots, in the order they filled
  std::size_t ready_head_ = 0;
  std::size_t ready_count_ = 0;
  std::string key_;  // the key being pushed, copied out of the event before it is swapped

  bool cancelled_ = false;
  bool closed_ = false;
  bool reader_waiting_ = false;
  std::uint64_t pushed_ = 0;
  std::uint64_t taken_ = 0;
  std::uint64_t overwritten_ = 0;
  std::uint64_t reader_waits_ = 0;
};

// Bytes an event counts against queue_bytes.
[[nodiscard]] std::size_t event_bytes(const Event& event);

}  // namespace sluice::client::detail
