// Owns: Histogram, a log-linear latency histogram. Values up to 63 ns are
// exact; above, each power of two is cut into 32 buckets, so a percentile is
// off by at most 1/32 (3 %). 1920 fixed counters cover the whole uint64
// range: recording never allocates and no sample is stored.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace sluice::bench {

class Histogram {
 public:
  static constexpr int kSubBits = 5;
  static constexpr std::size_t kLinear = std::size_t{2} << kSubBits;  // 64 exact values
  static constexpr std::size_t kBuckets = kLinear + (64 - kSubBits - 1) * (std::size_t{1} << kSubBits);

  void record(std::uint64_t value);
  void merge(const Histogram& other);
  void clear();

  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] std::uint64_t max() const { return max_; }
  [[nodiscard]] std::uint64_t min() const { return count_ == 0 ? 0 : min_; }
  [[nodiscard]] double mean() const { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_); }
  // The value at or below which `percent` (0..100) of the samples lie: the
  // middle of the bucket holding that rank, never above max(). 0 when empty.
  [[nodiscard]] std::uint64_t percentile(double percent) const;

  [[nodiscard]] static std::size_t bucket_of(std::uint64_t value);
  // The middle of bucket `index`.
  [[nodiscard]] static std::uint64_t bucket_value(std::size_t index);

 private:
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
};

}  // namespace sluice::bench
