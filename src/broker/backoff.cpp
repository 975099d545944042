#include "broker/backoff.hpp"

#include <algorithm>

namespace sluice::broker {

Backoff::Backoff(std::chrono::milliseconds first, std::chrono::milliseconds longest, std::uint64_t seed)
    : first_(std::max(first, std::chrono::milliseconds(1))), longest_(std::max(longest, first_)), random_(seed) {}

std::chrono::milliseconds Backoff::next() {
  // Past 2^20 times the first wait every wait is the longest anyway.
  const std::uint32_t doublings = std::min<std::uint32_t>(failures_, 20);
  ++failures_;
  const std::int64_t full = std::min<std::int64_t>(first_.count() << doublings, longest_.count());
  std::uniform_int_distribution<std::int64_t> pick((full + 1) / 2, full);
  return std::chrono::milliseconds(pick(random_));
}

}  // namespace sluice::broker
