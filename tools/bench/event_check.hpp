// Owns: EventCheck, what a subscriber of the bench checks in every event
// it reads, at a cost that lets one core out-read the speed-of-light
// server: the (publisher index, sequence) pair (stamp.hpp) against the next
// one expected, and the stamp for a latency sample.
//
// The usual event is the one expected: its 16 bytes of index and sequence
// are compared with the expected text, which is then counted up in hex, so
// no digit is parsed. Anything else (another publisher, a gap, a wrap of
// the generator, a notice) takes the slow path: parsed, given to a
// SequenceTracker, and the expectation is set from it. A latency sample is
// taken when the stamp differs from the previous event's (a publisher
// stamps a whole batch with the time it wrote it, so this samples the first
// event of each batch), unless it is zero (not stamped).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sequence_tracker.hpp"

namespace sluice::bench {

class EventCheck {
 public:
  struct Outcome {
    bool bench_event = true;    // false: not a bench payload (the caller decides)
    std::uint64_t gaps = 0;
    bool out_of_order = false;
    bool stamp_changed = false;  // a new nonzero stamp: `stamp` is valid
    std::uint64_t stamp = 0;
  };

  Outcome take(std::string_view payload) {
    Outcome out;
    if (payload.size() < kPayloadHeader) {
      out.bench_event = false;
      return out;
    }
    if (__builtin_memcmp(payload.data() + kIndexOffset, expected_.data(), kExpected) == 0) {
      count_up();
    } else if (!take_unexpected(payload, out)) {
      return out;
    }
    if (__builtin_memcmp(payload.data(), stamp_.data(), kStampSize) != 0) read_new_stamp(payload, out);
    return out;
  }

  // The highest number read from publisher `index`; 0 before its first.
  [[nodiscard]] std::uint64_t last(std::uint32_t index) const;

 private:
  static constexpr std::size_t kExpected = kIndexSize + kSequenceSize;

  // The expected event arrived: the next one is its sequence + 1, counted
  // up in the text. The tracker still holds the number the expectation was
  // set from, and is brought up to date when the slow path next runs (a
  // run is in order by construction: each number was one more than the last).
  void count_up() {
    for (std::size_t i = kExpected; i-- > kIndexSize;) {
      char& c = expected_[i];
      if (c == '9') {
        c = 'a';
        return;
      }
      if (c != 'f') {
        ++c;
        return;
      }
      c = '0';
    }
  }
  bool take_unexpected(std::string_view payload, Outcome& out);
  void read_new_stamp(std::string_view payload, Outcome& out);

  SequenceTracker tracker_;
  std::array<char, kExpected> expected_{};  // index then sequence + 1, as text; zeros match no event
  std::array<char, kStampSize> stamp_{};
};

}  // namespace sluice::bench
