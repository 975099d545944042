#include "delivery/policy.hpp"

#include <array>

namespace sluice::delivery {

namespace {

constexpr std::array<std::string_view, kPolicyCount> kNames = {"fifo", "drop-oldest", "drop-newest", "latest",
                                                               "disconnect"};

// The newest pending event of `tag`'s topic and key, or none. Newest first:
// with conflation on, a topic and key has at most one pending event, and a
// fresh one is likeliest near the back.
std::optional<std::size_t> find_conflatable(const conn::OutQueue& out, FrameTag tag) {
  for (std::size_t i = out.pending_data(); i-- > 0;) {
    const FrameTag pending = FrameTag::of(out.pending_label(i));
    if (pending.is_event() && pending.topic == tag.topic && pending.key == tag.key) return i;
  }
  return std::nullopt;
}

// The oldest pending event or run, or none (only notices or application
// messages wait, and those are not the policy's to drop). A run is dropped
// whole: its events left the hub together.
std::optional<std::size_t> find_oldest_event(const conn::OutQueue& out) {
  for (std::size_t i = 0; i < out.pending_data(); ++i) {
    if (FrameTag::of(out.pending_label(i)).holds_events()) return i;
  }
  return std::nullopt;
}

// Drops the oldest pending events until `frame` fits; records each one.
Verdict make_room(conn::OutQueue& out, const buf::FrameRef& frame, FrameTag tag, DropRecord* drops_by_topic) {
  for (;;) {
    if (out.push_data(frame, tag.label()) == conn::EnqueueStatus::ok) return Verdict::queued;
    const std::optional<std::size_t> oldest = find_oldest_event(out);
    if (!oldest) {
      drops_by_topic[tag.topic].add(tag.id);
      return Verdict::dropped;
    }
    const FrameTag dropped = FrameTag::of(out.remove_pending(*oldest));
    drops_by_topic[dropped.topic].add_range(dropped.id, dropped.last_id());
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

// The budget is checked here as well as by push_data(), which lets a frame
// of any size into an empty lane so that one big event can always go: a
// run is many events, and one by one they would stop at the budget.
bool enqueue_run(conn::OutQueue& out, Policy policy, const buf::FrameRef& run, FrameTag tag) {
  if (policy == Policy::latest || out.data_bytes() + run.size() > out.limits().max_bytes) return false;
  return out.push_data(run, tag.label()) == conn::EnqueueStatus::ok;
}

Verdict enqueue_with_policy(conn::OutQueue& out, Policy policy, const buf::FrameRef& frame, FrameTag tag,
                            DropRecord* drops_by_topic) {
  if (policy == Policy::latest) {
    if (const std::optional<std::size_t> pending = find_conflatable(out, tag)) {
      const FrameTag replaced = FrameTag::of(out.replace_pending(*pending, frame, tag.label()));
      drops_by_topic[replaced.topic].add(replaced.id);
      return Verdict::queued;
    }
  }
  if (out.push_data(frame, tag.label()) == conn::EnqueueStatus::ok) return Verdict::queued;
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

}  // namespace sluice::delivery
