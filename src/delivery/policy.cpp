#include "delivery/policy.hpp"

#include <array>

namespace sluice::delivery {

namespace {

constexpr std::array<std::string_view, kPolicyCount> kNames = {"fifo", "drop-oldest", "drop-newest", "latest",
                                                               "disconnect"};

// Puts `frame` in the place of the newest pending event of `tag`'s topic
// and key, and drops any older one of them; false when `frame` did not take
// a place. Newest first: a fresh one is likeliest near the back. A place
// ahead of a pending event of the topic under another key is not taken
// (the event is queued at the back instead): a topic's ids reach the
// client in order, so a client that resumes from the last id it got
// misses nothing and is handed nothing twice. Once
// backed up, a topic and key keeps at most one pending event; more wait
// only when a tick's events all came in before a flush that could not
// write them all, and the next event then takes the place of every one.
// A larger event takes a place only within the byte budget: else the
// pending ones of its key are dropped all the same and it is queued as a
// new event (making room if it must), so that small events swapped for
// large ones never hold more than the budget.
bool conflate(conn::OutQueue& out, const buf::FrameRef& frame, FrameTag tag, DropRecord* drops_by_topic) {
  bool replaced = false;
  bool another_key_after = false;
  for (std::size_t i = out.pending_data(); i-- > 0;) {
    const FrameTag pending = FrameTag::of(out.pending_label(i));
    if (!pending.is_event() || pending.topic != tag.topic) continue;
    if (pending.key != tag.key) {
      another_key_after = true;
      continue;
    }
    const bool fits = out.data_bytes() - out.pending_bytes(i) + frame.size() <= out.limits().max_bytes;
    if (replaced || !fits || another_key_after) {
      (void)out.remove_pending(i);
    } else {
      (void)out.replace_pending(i, frame, tag.label());
      replaced = true;
    }
    drops_by_topic[pending.topic].add(pending.id);
  }
  return replaced;
}

// Whether `policy` lets a topic's pending events be dropped for another's.
bool yields(Policy policy) { return policy == Policy::drop_oldest || policy == Policy::latest; }

// The oldest pending event or run that may give way, or none (only notices,
// application messages, or events of topics whose policy keeps them wait:
// a fifo topic's are never lost, and drop-newest keeps what waits). A run
// is dropped whole: its events left the hub together.
std::optional<std::size_t> find_oldest_event(const conn::OutQueue& out) {
  for (std::size_t i = 0; i < out.pending_data(); ++i) {
    const FrameTag pending = FrameTag::of(out.pending_label(i));
    if (pending.holds_events() && pending.yields) return i;
  }
  return std::nullopt;
}

// Drops the oldest pending events until `frame` fits; records each one.
// False when none is left that may give way.
bool push_making_room(conn::OutQueue& out, const buf::FrameRef& frame, FrameTag tag, DropRecord* drops_by_topic) {
  for (;;) {
    if (out.push_data(frame, tag.label()) == conn::EnqueueStatus::ok) return true;
    const std::optional<std::size_t> oldest = find_oldest_event(out);
    if (!oldest) return false;
    const FrameTag dropped = FrameTag::of(out.remove_pending(*oldest));
    drops_by_topic[dropped.topic].add_range(dropped.id, dropped.last_id());
  }
}

Verdict make_room(conn::OutQueue& out, const buf::FrameRef& frame, FrameTag tag, DropRecord* drops_by_topic) {
  if (push_making_room(out, frame, tag, drops_by_topic)) return Verdict::queued;
  drops_by_topic[tag.topic].add(tag.id);
  return Verdict::dropped;
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
  if (policy == Policy::latest || out.budgeted_bytes() + run.size() > out.limits().max_bytes) return false;
  tag.yields = yields(policy);
  return out.push_data(run, tag.label()) == conn::EnqueueStatus::ok;
}

Verdict enqueue_with_policy(conn::OutQueue& out, Policy policy, const buf::FrameRef& frame, FrameTag tag,
                            DropRecord* drops_by_topic) {
  tag.yields = yields(policy);
  // A reader with room gets every event, however many came in this tick:
  // only what a flush could not write is stale.
  if (policy == Policy::latest && out.backed_up() && conflate(out, frame, tag, drops_by_topic)) {
    return Verdict::queued;
  }
  if (out.push_data(frame, tag.label()) == conn::EnqueueStatus::ok) return Verdict::queued;
  switch (policy) {
    case Policy::fifo:
    case Policy::disconnect:
      return Verdict::cut_off;
    case Policy::drop_newest:
      drops_by_topic[tag.topic].add(tag.id);
      return Verdict::dropped;
    case Policy::latest:
      // Over the budget, a pending event of the same key gives way first:
      // dropping the oldest could take another key's only, newest value.
      // A backed-up queue was looked through above already.
      if (!out.backed_up() && conflate(out, frame, tag, drops_by_topic)) return Verdict::queued;
      return make_room(out, frame, tag, drops_by_topic);
    case Policy::drop_oldest:
      return make_room(out, frame, tag, drops_by_topic);
  }
  return Verdict::cut_off;
}

bool enqueue_notice(conn::OutQueue& out, const buf::FrameRef& notice, FrameTag tag, DropRecord* drops_by_topic) {
  return push_making_room(out, notice, tag, drops_by_topic);
}

}  // namespace sluice::delivery
