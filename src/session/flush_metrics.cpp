#include "session/flush_metrics.hpp"

#include <algorithm>
#include <chrono>

namespace sluice::session {

void FlushTally::before(const conn::OutQueue& queue) {
  waiting_ += queue.data_frames();
  const std::int64_t published = queue.oldest_data_published_ns();
  if (published != 0 && (oldest_ns_ == 0 || published < oldest_ns_)) oldest_ns_ = published;
}

// Each writev of a flush is counted with the flush's mean, so the
// histogram's count is the number of writes and its sum the frames written.
void FlushTally::record(metrics::LoopMetrics& metrics, std::size_t calls) const {
  if (waiting_ == 0) return;
  metrics.queue_depth.observe(waiting_);
  const std::size_t written = waiting_ - std::min(waiting_, left_);
  if (written == 0 || calls == 0) return;
  const std::size_t per_call = written / calls;
  for (std::size_t call = 0; call < calls; ++call) {
    // The remainder goes to the first writes, so the sum is `written`.
    metrics.writev_events.observe(per_call + (call < written % calls ? 1 : 0));
  }
  if (oldest_ns_ == 0) return;
  const std::int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
  const std::int64_t waited_us = std::max<std::int64_t>(0, now_ns - oldest_ns_) / 1000;
  metrics.event_age_at_flush_us.observe(static_cast<std::uint64_t>(waited_us));
}

}  // namespace sluice::session
