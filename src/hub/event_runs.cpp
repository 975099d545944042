#include "hub/event_runs.hpp"

namespace sluice::hub {

const buf::FrameRef& EventRuns::form(WireForm form) {
  Slot& slot = runs_[static_cast<std::size_t>(form)];
  if (!slot.tried) {
    slot.tried = true;
    slot.frame = build(form);
  }
  return slot.frame;
}

// A form that one of the events lacks (the pool refused it) makes no run:
// the subscriber then meets that event's loss one by one, as it would have.
// Nor do big events: copying them costs more than the per-event work a run
// saves, and a run stays small next to any send budget.
buf::FrameRef EventRuns::build(WireForm form) {
  if (events_.size() == 1) return event_form(0, form);
  std::size_t total = 0;
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const buf::FrameRef& frame = event_form(i, form);
    if (!frame) return {};
    total += frame.size();
  }
  if (total > kMaxRunBytes || total > events_.size() * kMaxRunEventBytes) return {};
  buf::FrameBuilder run(pool_, buf::Lane::data);
  for (std::size_t i = 0; i < events_.size(); ++i) {
    for (const buf::Block* block = event_form(i, form).first_block(); block != nullptr; block = block->next) {
      if (!run.append(block->data(), block->used)) return {};
    }
  }
  // A run is as old as its oldest event, the first.
  buf::FrameRef frame = run.finish();
  frame.set_published_ns(event_form(0, form).published_ns());
  return frame;
}

}  // namespace sluice::hub
