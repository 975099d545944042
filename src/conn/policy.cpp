#include "conn/policy.hpp"

#include <algorithm>
#include <array>

namespace sluice::conn {

namespace {

constexpr std::array<std::string_view, kPolicyCount> kNames = {"fifo", "drop-oldest", "drop-newest", "latest",
                                                               "disconnect"};

// Drops the oldest pending frames until `frame` fits; records each one.
Verdict make_room(OutQueue& out, const buf::FrameRef& frame, FrameTag tag, DropRecord* drops_by_topic) {
  for (;;) {
    if (out.push_data(frame, tag) == EnqueueStatus::ok) return Verdict::queued;
    const std::optional<FrameTag> dropped = out.drop_oldest_data();
    if (!dropped) {
      // Only the frame on the wire is left and it still does not fit.
      drops_by_topic[tag.topic].add(tag.id);
      return Verdict::dropped;
    }
    drops_by_topic[dropped->topic].add(dropped->id);
  }
}

}  // namespace

std::optional<Policy> parse_policy(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<Policy>(i);
  }
  return std::nullopt;
}

std::string_view policy_name(Policy policy) { return kNames[static_cast<std::size_t>(policy)]; }

void DropRecord::add_range(std::uint64_t first, std::uint64_t last) {
  first_id = count == 0 ? first : std::min(first_id, first);
  last_id = count == 0 ? last : std::max(last_id, last);
  count += last - first + 1;
}

Verdict enqueue_with_policy(OutQueue& out, Policy policy, const buf::FrameRef& frame, FrameTag tag,
                            DropRecord* drops_by_topic) {
  if (policy == Policy::latest) {
    if (const std::optional<FrameTag> replaced = out.replace_pending(frame, tag)) {
      drops_by_topic[replaced->topic].add(replaced->id);
      return Verdict::queued;
    }
  }
  if (out.push_data(frame, tag) == EnqueueStatus::ok) return Verdict::queued;
  switch (policy) {
    case Policy::fifo:
    case Policy::disconnect:
      return Verdict::cut_off;
    case Policy::drop_newest:
      drops_by_topic[tag.topic].add(tag.id);
      return Verdict::dropped;
    case Policy::drop_oldest:
    case Policy::latest:
      return make_room(out, frame, tag, drops_by_topic);
  }
  return Verdict::cut_off;
}

}  // namespace sluice::conn
