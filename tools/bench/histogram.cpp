#include "histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sluice::bench {

namespace {
constexpr std::uint64_t kHalf = std::uint64_t{1} << Histogram::kSubBits;  // buckets per power of two
}

std::size_t Histogram::bucket_of(std::uint64_t value) {
  if (value < kLinear) return static_cast<std::size_t>(value);
  const int msb = 63 - std::countl_zero(value);
  const int shift = msb - kSubBits;  // keeps the top kSubBits+1 bits: 32..63
  const std::uint64_t top = value >> shift;
  return kLinear + static_cast<std::size_t>(shift - 1) * kHalf + static_cast<std::size_t>(top - kHalf);
}

std::uint64_t Histogram::bucket_value(std::size_t index) {
  if (index < kLinear) return index;
  const std::size_t rest = index - kLinear;
  const int shift = static_cast<int>(rest / kHalf) + 1;
  const std::uint64_t top = rest % kHalf + kHalf;
  return (top << shift) + (std::uint64_t{1} << (shift - 1));
}

void Histogram::record(std::uint64_t value) {
  ++counts_[bucket_of(value)];
  ++count_;
  sum_ += value;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void Histogram::merge(const Histogram& other) {
  for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void Histogram::clear() { *this = Histogram(); }

std::uint64_t Histogram::percentile(double percent) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(std::clamp(percent, 0.0, 100.0) / 100.0 * static_cast<double>(count_));
  const std::uint64_t rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wanted));
  if (rank >= count_) return max_;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(bucket_value(i), min(), max_);
  }
  return max_;
}

}  // namespace sluice::bench
