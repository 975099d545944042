// Owns: StreamTally, the per-event work of every subscriber of the bench
// client, whatever its protocol: the event's check (EventCheck), the
// stream's counts, and the thread's shared counters and latency samples.
// It is the one place that work lives, so that the client's own ceiling
// (client-ceiling) is measured on exactly what a session does per event.
#pragma once

#include <cstdint>
#include <string_view>

#include "event_check.hpp"
#include "reader_context.hpp"

namespace sluice::bench {

struct StreamTally {
  EventCheck check;
  std::uint64_t events = 0;
  std::uint64_t gaps = 0;  // sequence numbers found missing so far
  std::uint64_t first_event_ns = 0;
  std::uint64_t last_event_ns = 0;

  // Takes one event read at `now`. False, with nothing counted, when the
  // payload is not the bench's (the session decides what that means).
  bool take(ReaderContext& context, std::string_view payload, std::uint64_t now) {
    const EventCheck::Outcome outcome = check.take(payload);
    if (!outcome.bench_event) return false;
    if (outcome.gaps != 0) {
      context.mark_gaps(outcome.gaps, gaps == 0);
      gaps += outcome.gaps;
    }
    if (outcome.out_of_order) context.counters.add(context.counters.order_errors, 1);
    if (events++ == 0) first_event_ns = now;
    last_event_ns = now;
    if (outcome.stamp_changed) context.sample_latency(now, outcome.stamp);
    return true;
  }
};

}  // namespace sluice::bench
