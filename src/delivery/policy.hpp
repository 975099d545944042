// Owns: enqueue_with_policy(), which queues one event for one subscriber and
// applies the subscriber's policy (sluice/policy.hpp) when its send budget is
// spent, enqueue_run(), which queues a run of events when the policy lets
// them go together, and the policies' names. Every event it drops or
// conflates is recorded in a DropRecord so that the subscriber can be told:
// loss is never silent. Only frames tagged as events or runs are ever
// dropped or replaced.
#pragma once

#include <optional>
#include <string_view>

#include "buf/frame.hpp"
#include "conn/out_queue.hpp"
#include "delivery/drop_record.hpp"
#include "delivery/frame_tag.hpp"
#include "sluice/policy.hpp"

namespace sluice::delivery {

using sluice::kPolicyCount;
using sluice::Policy;

[[nodiscard]] std::optional<Policy> parse_policy(std::string_view name);
[[nodiscard]] std::string_view policy_name(Policy policy);

enum class Verdict : std::uint8_t {
  queued,   // the event is queued (others may have been dropped for it)
  dropped,  // the event itself was dropped (recorded)
  cut_off,  // fifo or disconnect past the budget: end this subscriber
};

// Queues `run`, consecutive events of one topic described by `tag`
// (FrameTag::run), when `policy` lets them go together and the send budget
// takes them all; returns false, queueing nothing, otherwise: the events
// are then each put to enqueue_with_policy(), which decides exactly as if
// no run had been offered. `latest` never takes a run: it decides event by
// event whether one replaces another.
[[nodiscard]] bool enqueue_run(conn::OutQueue& out, Policy policy, const buf::FrameRef& run, FrameTag tag);

// Queues `frame`, an event described by `tag`, under `policy`. Events it
// drops or replaces are recorded in `drops_by_topic[their tag.topic]`, an
// array the caller sizes to its topic count. Never allocates once the
// queue's ring has grown.
[[nodiscard]] Verdict enqueue_with_policy(conn::OutQueue& out, Policy policy, const buf::FrameRef& frame, FrameTag tag,
                                          DropRecord* drops_by_topic);

// Queues `notice`, a frame that must reach the client in order with the
// events (FrameTag::notice), dropping the oldest pending events that may
// give way until it fits, recorded as enqueue_with_policy() records them.
// False, queueing nothing more, when what fills the budget may not give way
// (events of topics that keep theirs, notices, application messages): the
// caller holds the notice and offers it again once the queue has room.
[[nodiscard]] bool enqueue_notice(conn::OutQueue& out, const buf::FrameRef& notice, FrameTag tag,
                                  DropRecord* drops_by_topic);

}  // namespace sluice::delivery
