// Owns: EventRuns, the events of one drain laid out back to back, one frame
// per wire form, shared by every subscriber of the loop that was owed all of
// them.
//
// Handing a subscriber each event on its own costs, per event and per
// subscriber, a reference count, a queue slot, an iovec and the kernel's
// walk over one more tiny iovec. A run costs that once per drain: the
// events' bytes are copied once into fresh pool blocks (a few kilobytes per
// drain, whatever the number of subscribers), and each caught-up subscriber
// queues one reference to them and writes them with a handful of iovecs.
// A run is built only for a form some subscriber asks for, at its first
// request; a drain of one event is that event's own frame, with no copy.
//
// Runs are for small events (at most kMaxRunEventBytes on average, and
// kMaxRunBytes in all): a big event's own frame already fills iovecs well,
// and copying it would cost more than the per-event work saved.
//
// An empty run means there is none (the events are too big, or the pool
// had no blocks for it): the subscriber then takes the events one by one,
// which needs no blocks.
//
// A run is laid out from the forms the publisher built, read from the
// kept events themselves; only a form nobody built asks the drain for its
// events' EventFrames (DrainForms), which it then makes. A drain whose
// subscribers all take runs of built forms makes none: making them was
// over a quarter of the instructions of one subscriber's drain.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "buf/frame.hpp"
#include "buf/pool.hpp"
#include "hub/event_frames.hpp"
#include "hub/history.hpp"
#include "hub/wire_form.hpp"

namespace sluice::hub {

inline constexpr std::size_t kMaxRunBytes = 256 << 10;
inline constexpr std::size_t kMaxRunEventBytes = 1024;

// The drain's events as EventFrames, one per event in order, made on the
// first call: what builds a form the publisher did not.
class DrainForms {
 public:
  [[nodiscard]] virtual std::span<EventFrames> frames() = 0;

 protected:
  ~DrainForms() = default;
};

class EventRuns {
 public:
  // `events` are consecutive ids of one topic, oldest first; they and
  // `forms` (of the same events) must outlive this object.
  EventRuns(buf::Pool& pool, std::span<const KeptEvent> events, DrainForms& forms)
      : pool_(pool), events_(events), forms_(forms) {}

  [[nodiscard]] const buf::FrameRef& form(WireForm form);

 private:
  static constexpr std::size_t kForms = kWsForms + 1;
  struct Slot {
    buf::FrameRef frame;
    bool tried = false;
  };

  [[nodiscard]] buf::FrameRef build(WireForm form);
  // The i-th event's frame in `form`: the one kept with it, else built.
  [[nodiscard]] const buf::FrameRef& event_form(std::size_t i, WireForm form) {
    const buf::FrameRef& kept = events_[i].kept(form);
    if (kept) return kept;
    if (frames_.empty()) frames_ = forms_.frames();
    return frames_[i].form(form);
  }

  buf::Pool& pool_;
  std::span<const KeptEvent> events_;
  DrainForms& forms_;
  std::span<EventFrames> frames_;  // forms_.frames(), once asked
  std::array<Slot, kForms> runs_;
};

}  // namespace sluice::hub
