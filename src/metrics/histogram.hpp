// Owns: Histogram, a distribution with fixed buckets that one loop fills on
// its event path, and HistogramTotals, several loops' histograms added up
// at scrape time.
//
// The bucket bounds are a compile-time array (each an inclusive upper bound,
// as Prometheus's `le` is), so observe() is a handful of compares with no
// search and no allocation. Each bucket counts only the values that fell in
// it; the running ("cumulative") counts Prometheus wants are made at
// scrape time, and the total count is the sum of the buckets, so a scrape
// never shows a count that disagrees with its buckets.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "metrics/cells.hpp"

namespace sluice::metrics {

template <const auto& Bounds>
class Histogram {
 public:
  static constexpr std::size_t kBuckets = Bounds.size() + 1;  // the last is +Inf
  static_assert(Bounds.size() > 0 && std::is_sorted(Bounds.begin(), Bounds.end()) &&
                    std::adjacent_find(Bounds.begin(), Bounds.end()) == Bounds.end(),
                "bucket bounds must be strictly ascending");

  void observe(std::uint64_t value) {
    buckets_[bucket_of(value)].add();
    sum_.add(value);
  }

  // The bucket `value` falls in: the first whose bound is >= value.
  [[nodiscard]] static constexpr std::size_t bucket_of(std::uint64_t value) {
    std::size_t index = 0;
    for (const std::uint64_t bound : Bounds) index += value > bound ? 1 : 0;
    return index;
  }

  [[nodiscard]] std::uint64_t bucket(std::size_t index) const { return buckets_[index].value(); }
  [[nodiscard]] std::uint64_t sum() const { return sum_.value(); }

 private:
  std::array<Counter, kBuckets> buckets_;
  Counter sum_;
};

template <const auto& Bounds>
struct HistogramTotals {
  std::array<std::uint64_t, Bounds.size() + 1> buckets{};  // per bucket, not running
  std::uint64_t sum = 0;

  void add(const Histogram<Bounds>& histogram) {
    for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i] += histogram.bucket(i);
    sum += histogram.sum();
  }
  [[nodiscard]] std::uint64_t count() const {
    std::uint64_t total = 0;
    for (const std::uint64_t b : buckets) total += b;
    return total;
  }
};

}  // namespace sluice::metrics
