// Owns: Backoff, the wait before a link tries Redis again: it doubles with
// each failure in a row, from reconnect_min up to reconnect_max, and is
// drawn from the upper half of that, so that the loops of many nodes cut
// off by the same fault do not all come back in the same millisecond.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace sluice::broker {

class Backoff {
 public:
  Backoff(std::chrono::milliseconds first, std::chrono::milliseconds longest, std::uint64_t seed);

  // The wait before the next attempt; counts one more failure.
  [[nodiscard]] std::chrono::milliseconds next();
  // An attempt succeeded: the next failure waits `first` again.
  void reset() { failures_ = 0; }
  // The failures in a row the next wait is drawn for.
  [[nodiscard]] std::uint32_t failures() const { return failures_; }

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds longest_;
  std::uint32_t failures_ = 0;
  std::mt19937_64 random_;
};

}  // namespace sluice::broker
