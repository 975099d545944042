#include "broker/continuity.hpp"

namespace sluice::broker {

Step step_after(StreamId position, StreamId entry) {
  Step step;
  // XREAD answers only ids after the cursor; one that is not means a
  // confused answer, and handing it over again would be a duplicate.
  if (!(position < entry)) {
    step.stale = true;
    return step;
  }
  std::uint64_t expected = position.seq + 1;
  if (position.epoch != 0 && entry.epoch != position.epoch) {
    step.reset = kStreamReplaced;
    expected = 1;
  } else if (position.epoch == 0) {
    expected = 1;  // the stream did not exist: its first event is owed
  }
  if (entry.seq > expected) {
    step.gap = true;
    step.gap_first = {entry.epoch, expected};
    step.gap_last = {entry.epoch, entry.seq - 1};
  }
  return step;
}

Recheck recheck(StreamId position, bool exists, StreamId newest) {
  const bool had_stream = position.epoch != 0;
  if (!exists) return had_stream ? Recheck{{0, 0}, kStreamLost} : Recheck{position, nullptr};
  if (!had_stream) return {position, nullptr};  // created since: read it from its first entry
  if (newest.epoch != position.epoch) return {{newest.epoch, 0}, kStreamReplaced};
  // Redis came back from an older copy of its data: the ids after `newest`
  // will be given to new events.
  if (newest.seq < position.seq) return {newest, kStreamRewound};
  return {position, nullptr};
}

const char* check_resume(StreamId asked, bool found, StreamId first) {
  if (!found) return kUnknownId;
  // SEQ 0 is "before the first event", as on a single node.
  if (first == asked || (asked.seq == 0 && first == asked.next())) return nullptr;
  return first.epoch == asked.epoch ? kTooOld : kOtherEpoch;
}

}  // namespace sluice::broker
