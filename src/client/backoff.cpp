#include "backoff.hpp"

#include <algorithm>

namespace sluice::client::detail {

namespace {

// std::random_device reads the kernel's CSPRNG (getrandom) on Linux; one
// seed per client decorrelates clients without a system call per delay.
std::uint64_t strong_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// Caps the cap, so that base << 20 cannot overflow.
constexpr std::chrono::milliseconds kLongestDelay = std::chrono::hours(24);

}  // namespace

Backoff::Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds cap)
    : base_(initial), cap_(std::clamp(cap, std::chrono::milliseconds(1), kLongestDelay)), random_(strong_seed()) {}

std::chrono::milliseconds Backoff::next(std::chrono::milliseconds at_least) {
  // Past 2^20 times the base every delay is the cap anyway.
  const std::uint32_t doublings = std::min<std::uint32_t>(failures_, 20);
  ++failures_;
  const std::int64_t base = std::clamp<std::int64_t>(base_.count(), 0, cap_.count());
  const std::int64_t step = doublings == 0 ? base : std::max<std::int64_t>(base, kShortestStep.count());
  const std::int64_t full = std::min<std::int64_t>(step << doublings, cap_.count());
  std::uniform_int_distribution<std::int64_t> pick(full / 2, full);
  const std::chrono::milliseconds delay(pick(random_));
  return std::max(delay, std::min(at_least, cap_));
}

}  // namespace sluice::client::detail
