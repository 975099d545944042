// Owns: the bench's one clock. Publishers stamp payloads with it and readers
// subtract from it, so both must read the same clock: CLOCK_MONOTONIC, which
// every process on the machine shares (the speed-of-light peer stamps too).
#pragma once

#include <time.h>

#include <cstdint>

namespace sluice::bench {

[[nodiscard]] inline std::uint64_t now_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline constexpr std::uint64_t kNsPerUs = 1'000;
inline constexpr std::uint64_t kNsPerMs = 1'000'000;
inline constexpr std::uint64_t kNsPerSec = 1'000'000'000;

}  // namespace sluice::bench
