#include "event_check.hpp"

#include <cstring>

#include "stamp.hpp"

namespace sluice::bench {

bool EventCheck::take_unexpected(std::string_view payload, Outcome& out) {
  std::uint32_t index = 0;
  std::uint64_t seq = 0;
  if (!read_sequence(payload, index, seq)) {
    out.bench_event = false;
    return false;
  }
  // Bring the tracker up to the end of the run the fast path counted.
  std::uint32_t run_index = 0;
  std::uint64_t run_last = 0;
  char text[kPayloadHeader] = {};
  std::memcpy(text + kIndexOffset, expected_.data(), kExpected);
  if (read_sequence(std::string_view(text, kPayloadHeader), run_index, run_last) && run_last > 1 &&
      run_last - 1 > tracker_.last(run_index)) {
    static_cast<void>(tracker_.next(run_index, run_last - 1));
  }
  const SequenceTracker::Step step = tracker_.next(index, seq);
  out.gaps = step.gaps;
  out.out_of_order = step.out_of_order;
  const std::uint64_t next = step.out_of_order ? tracker_.last(index) + 1 : seq + 1;
  write_sequence(text, index, next);
  std::memcpy(expected_.data(), text + kIndexOffset, kExpected);
  return true;
}

std::uint64_t EventCheck::last(std::uint32_t index) const {
  char text[kPayloadHeader] = {};
  std::memcpy(text + kIndexOffset, expected_.data(), kExpected);
  std::uint32_t expected_index = 0;
  std::uint64_t next = 0;
  const std::uint64_t tracked = tracker_.last(index);
  if (!read_sequence(std::string_view(text, kPayloadHeader), expected_index, next) || expected_index != index) {
    return tracked;
  }
  return next > tracked + 1 ? next - 1 : tracked;
}

void EventCheck::read_new_stamp(std::string_view payload, Outcome& out) {
  std::memcpy(stamp_.data(), payload.data(), kStampSize);
  std::uint64_t ns = 0;
  if (read_stamp(payload, ns) && ns != 0) {
    out.stamp_changed = true;
    out.stamp = ns;
  }
}

}  // namespace sluice::bench
