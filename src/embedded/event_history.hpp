// Owns: EventHistory, the push server's memory of its last events, so that
// a client that comes back with Last-Event-ID gets what it missed, and is
// told when it cannot.
//
// The application hands in the records (a static array); each holds one
// event whole, up to kHistoryDataBytes of data, so the history's RAM is
// the array and nothing more, and keeping an event is a copy into the
// oldest record. One ring serves every topic, in id order. What leaves it
// (the oldest, pushed out by a newer event) or never enters it (an event
// longer than a record) raises lost_through(): a resume from an id below
// that may have missed events, and the server says so. The ring does not
// know which topic the lost event was, so a client of a quiet topic may be
// told of a loss that was another topic's; it is never told nothing when
// it did lose events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "embedded/push_connection.hpp"

namespace sluice::embedded {

// The longest event data the history keeps.
inline constexpr std::size_t kHistoryDataBytes = 128;

struct HistoryRecord {
  std::uint64_t id = 0;
  std::uint8_t topic_size = 0;
  std::uint8_t data_size = 0;
  char topic[kMaxTopicBytes] = {};
  char data[kHistoryDataBytes] = {};

  [[nodiscard]] std::string_view topic_name() const { return {topic, topic_size}; }
  [[nodiscard]] std::string_view event_data() const { return {data, data_size}; }
};
static_assert(kHistoryDataBytes <= UINT8_MAX, "data_size is one byte");

class EventHistory {
 public:
  // Keeps nothing: every resume from an id already sent is told it missed events.
  EventHistory() = default;
  explicit EventHistory(std::span<HistoryRecord> records) : records_(records) {}

  // Keeps event `id` (ids rise from call to call), pushing out the oldest
  // when every record is taken.
  void record(std::uint64_t id, std::string_view topic, std::string_view data);

  // The newest id the history no longer has (0: none lost yet).
  [[nodiscard]] std::uint64_t lost_through() const { return lost_through_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t capacity() const { return records_.size(); }

  // The i-th record kept, oldest first (i < size()).
  [[nodiscard]] const HistoryRecord& at(std::size_t i) const {
    return records_[(next_ + records_.size() - count_ + i) % records_.size()];
  }

 private:
  std::span<HistoryRecord> records_;
  std::size_t next_ = 0;   // the record the next event goes into
  std::size_t count_ = 0;  // records holding an event
  std::uint64_t lost_through_ = 0;
};

}  // namespace sluice::embedded
