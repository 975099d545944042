// Owns: FlushTally, what one flush of a connection carried, counted into
// its loop's own cells (no lock, no allocation): how many data frames
// waited when it began, how many each writev took, and how long the oldest
// of them had waited since its event was published (one clock read per
// flush that wrote an event). An HTTP/1.1 connection's flush counts its
// own queue; an HTTP/2 connection's counts its streams' queues together,
// as one socket's flush. A flush with no data frames waiting (replies,
// heartbeats) is not counted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "conn/out_queue.hpp"
#include "metrics/loop_metrics.hpp"

namespace sluice::session {

class FlushTally {
 public:
  // Before the flush: one queue's data frames and its oldest event.
  void before(const conn::OutQueue& queue);
  // After it: the same queue's frames left.
  void after(const conn::OutQueue& queue) { left_ += queue.data_frames(); }
  // Counts the flush, which took `calls` writev calls.
  void record(metrics::LoopMetrics& metrics, std::size_t calls) const;

 private:
  std::size_t waiting_ = 0;
  std::size_t left_ = 0;
  std::int64_t oldest_ns_ = 0;  // 0: no event waited
};

}  // namespace sluice::session
