// Owns: Backoff, the delay before each reconnection: exponential in the
// number of consecutive failures, capped, with random jitter so that many
// clients cut off at the same moment do not return at the same moment.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>

namespace sluice::client::detail {

class Backoff {
 public:
  // `initial` is the base until the server names one; `cap` bounds every delay.
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds cap);

  // The server's "retry:" value becomes the base (WHATWG EventSource), from
  // at least 50 ms: a server that asks for 0 and closes after each event
  // would otherwise have the client come back as fast as it can connect.
  void set_base(std::chrono::milliseconds base) { base_ = std::max(base, kShortestStep); }

  // What a failure doubles, at least: a base of 0 (the application's own)
  // is used once, and failures after it still back off.
  static constexpr std::chrono::milliseconds kShortestStep{50};
  // A stream opened: the next failure starts again from the base.
  void reset() { failures_ = 0; }

  // The delay before the next attempt: base * 2^failures (after the first,
  // the base is taken as at least 50 ms), capped, drawn uniformly from its
  // upper half, and at least `at_least` (a Retry-After, itself capped).
  // Counts one more failure.
  [[nodiscard]] std::chrono::milliseconds next(std::chrono::milliseconds at_least = {});

  [[nodiscard]] std::uint32_t failures() const { return failures_; }

 private:
  std::chrono::milliseconds base_;
  std::chrono::milliseconds cap_;
  std::uint32_t failures_ = 0;
  std::mt19937_64 random_;
};

}  // namespace sluice::client::detail
