// Owns: count_publish(), how a publish's outcome shows in the loop's
// metrics: an accepted event is counted as published, a refusal the
// publisher may retry (503) by its reason. Other refusals (a bad name, a
// reserved event) are the client's mistake and show in its reply alone.
#pragma once

#include "hub/hub_types.hpp"
#include "metrics/loop_metrics.hpp"

namespace sluice::session {

// The counter a publish's outcome adds to; nullptr for none.
inline metrics::Counter* publish_counter(metrics::LoopMetrics& m, hub::HubStatus status) {
  switch (status) {
    case hub::HubStatus::ok:
      return &m.events_published;
    case hub::HubStatus::no_memory:
      return &m.refused(metrics::Refusal::no_memory);
    case hub::HubStatus::busy:
      return &m.refused(metrics::Refusal::busy);
    case hub::HubStatus::too_many_topics:
      return &m.refused(metrics::Refusal::too_many_topics);
    default:
      return nullptr;
  }
}

inline void count_publish(metrics::LoopMetrics& m, hub::HubStatus status) {
  if (metrics::Counter* counter = publish_counter(m, status)) counter->add();
}

// A publish Redis did not take.
inline void count_broker_refusal(metrics::LoopMetrics& m) { m.refused(metrics::Refusal::broker).add(); }

}  // namespace sluice::session
