// Owns: Backoff, the delay before each reconnection: exponential in the
// number of consecutive failures, capped, with random jitter so that many
// clients cut off at the same moment do not return at the same moment.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace sluice::client::detail {

class Backoff {
 public:
  // `initial` is the base until the server names one; `cap` bounds every delay.
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds cap);

  // The server's "retry:" value becomes the base (WHATWG EventSource).
  void set_base(std::chrono::milliseconds base) { base_ = base; }
  // A stream opened: the next failure starts again from the base.
  void reset() { failures_ = 0; }

  // The delay before the next attempt: base * 2^failures, capped, drawn
  // uniformly from its upper half, and at least `at_least` (a Retry-After,
  // itself capped). Counts one more failure.
  [[nodiscard]] std::chrono::milliseconds next(std::chrono::milliseconds at_least = {});

  [[nodiscard]] std::uint32_t failures() const { return failures_; }

 private:
  std::chrono::milliseconds base_;
  std::chrono::milliseconds cap_;
  std::uint32_t failures_ = 0;
  std::mt19937_64 random_;
};

}  // namespace sluice::client::detail
