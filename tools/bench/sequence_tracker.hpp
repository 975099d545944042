// Owns: SequenceTracker, a reader's check of the (publisher index, sequence)
// pairs in bench payloads (stamp.hpp): for each publisher the last number
// seen, numbers skipped (gaps: events lost between publisher and reader) and
// numbers that repeat or step back (order errors). A reader that joins a
// live stream owes nothing from before it joined, so the first number seen
// from a publisher starts its count, as the first id does for SSE readers.
// The generator's numbers (kGeneratorIndex) start again at 1 after its
// batch's last: a 1 after the highest number seen so far is in order, and a
// 1 after a lower one is a gap of the batch's missing tail.
#pragma once

#include <array>
#include <cstdint>

#include "stamp.hpp"

namespace sluice::bench {

class SequenceTracker {
 public:
  struct Step {
    std::uint64_t gaps = 0;    // numbers skipped before this one
    bool out_of_order = false;  // a repeat or a step back; the last number is kept
  };

  // Takes the next event of publisher `index` (< kMaxPublishers).
  Step next(std::uint32_t index, std::uint64_t seq) {
    std::uint64_t& last = last_[index % kMaxPublishers];
    if (last == 0) {
      last = seq;
      return {};
    }
    if (index == kGeneratorIndex && seq == 1) {
      if (last > batch_) batch_ = last;
      const Step step{.gaps = batch_ - last};
      last = seq;
      return step;
    }
    if (seq <= last) return {.gaps = 0, .out_of_order = true};
    const Step step{.gaps = seq - last - 1};
    last = seq;
    return step;
  }

  // The highest number seen from publisher `index`; 0 before its first.
  [[nodiscard]] std::uint64_t last(std::uint32_t index) const { return last_[index % kMaxPublishers]; }

 private:
  std::array<std::uint64_t, kMaxPublishers> last_{};
  std::uint64_t batch_ = 0;  // the generator's batch length, the highest number before a wrap
};

}  // namespace sluice::bench
