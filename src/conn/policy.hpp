// Owns: the slow-consumer policies, and enqueue_with_policy(), which queues
// one event for one subscriber and applies the subscriber's policy when its
// send budget is spent. Every event it drops or conflates is recorded in a
// DropRecord so that the subscriber can be told (loss is never silent).
//
//   fifo         lossless while within budget; past it, the subscriber is
//                cut off (it resumes by id, missing nothing)
//   drop-oldest  the oldest events not yet on the wire make room
//   drop-newest  the new event is dropped
//   latest       a pending event of the same topic and key is replaced by
//                the new one, always (a dashboard wants the newest value,
//                not the history); past the budget, drop-oldest
//   disconnect   past the budget, the subscriber is closed at once
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "buf/frame.hpp"
#include "conn/out_queue.hpp"

namespace sluice::conn {

enum class Policy : std::uint8_t { fifo, drop_oldest, drop_newest, latest, disconnect };
inline constexpr int kPolicyCount = 5;

[[nodiscard]] std::optional<Policy> parse_policy(std::string_view name);
[[nodiscard]] std::string_view policy_name(Policy policy);

// Events one subscriber lost on one topic since it was last told.
struct DropRecord {
  std::uint64_t count = 0;
  std::uint64_t first_id = 0;  // lowest id lost
  std::uint64_t last_id = 0;   // highest id lost

  void add(std::uint64_t id) { add_range(id, id); }
  void add_range(std::uint64_t first, std::uint64_t last);
  [[nodiscard]] bool empty() const { return count == 0; }
};

enum class Verdict : std::uint8_t {
  queued,   // the event is queued (others may have been dropped for it)
  dropped,  // the event itself was dropped (recorded)
  cut_off,  // fifo or disconnect past the budget: end this subscriber
};

// Queues `frame` under `policy`. `drops` is the record for tag.topic;
// conflated or dropped events of other topics of the same subscriber are
// recorded in `drops_by_topic[their tag.topic]`, an array the caller sizes
// to its topic count. Never allocates once the queue's ring has grown.
[[nodiscard]] Verdict enqueue_with_policy(OutQueue& out, Policy policy, const buf::FrameRef& frame, FrameTag tag,
                                          DropRecord* drops_by_topic);

}  // namespace sluice::conn
