// Owns: FollowedSet, the topics one reader follows and where it stands in
// each, with a bound on how many.
//
// A topic enters when the node gains a local subscriber for it and leaves
// when it has none, so the set, and the reader's memory, grows with the
// topics this node's clients use, never with the topics that exist only in
// Redis. A topic keeps its slot while followed, so that an answer tagged
// with the slot's index finds it however the set changed in the meantime;
// a freed slot is reused by the next topic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker/stream_id.hpp"

namespace sluice::broker {

struct Followed {
  enum class Phase : std::uint8_t {
    to_locate,  // its stream's newest id must be asked for (again)
    locating,   // asked; the answer has not come
    reading,    // in every read, after `position`
    held,       // the sink had no room: left out of reads until resumed
  };

  const std::string* topic;  // owned by the set; stable while followed; null: a free slot
  std::uint32_t serial;      // tells a late answer about an earlier follow of the same slot
  Phase phase = Phase::to_locate;
  bool has_position = false;  // `position` is where the hub stands: check it, do not replace it
  bool check_on_resume = false;  // held across a reconnect: checked before it is read again
  StreamId position;          // the last entry handed over; {0, 0}: before the first
};

class FollowedSet {
 public:
  // At most `max_topics` (and fewer than 2^24, so that a slot fits a tag).
  explicit FollowedSet(std::size_t max_topics);

  // A new slot in phase to_locate; nullptr when the set is full. The topic
  // must not be followed already.
  [[nodiscard]] Followed* add(std::string_view topic);
  void remove(std::string_view topic);
  [[nodiscard]] Followed* find(std::string_view topic);
  // The slot at `index` if it still holds the follow with `serial`.
  [[nodiscard]] Followed* at(std::size_t index, std::uint32_t serial);

  [[nodiscard]] std::size_t size() const { return index_.size(); }
  [[nodiscard]] std::size_t capacity() const { return max_; }
  // Slots in use and free ones among them: walk 0..slot_count() and skip
  // the free ones (topic == nullptr).
  [[nodiscard]] std::size_t slot_count() const { return slots_.size(); }
  [[nodiscard]] Followed& operator[](std::size_t index) { return slots_[index]; }
  [[nodiscard]] std::size_t index_of(const Followed& slot) const {
    return static_cast<std::size_t>(&slot - slots_.data());
  }

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  std::size_t max_;
  std::uint32_t next_serial_ = 1;
  std::vector<Followed> slots_;
  std::vector<std::size_t> free_;
  std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> index_;
};

}  // namespace sluice::broker
