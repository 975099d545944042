#include "metrics/histogram.hpp"

#include <gtest/gtest.h>

namespace sluice::metrics {
namespace {

constexpr std::array<std::uint64_t, 3> kBounds{1, 10, 100};

TEST(MetricsHistogram, BoundsAreInclusiveUpperBounds) {
  using H = Histogram<kBounds>;
  EXPECT_EQ(H::bucket_of(0), 0u);
  EXPECT_EQ(H::bucket_of(1), 0u);
  EXPECT_EQ(H::bucket_of(2), 1u);
  EXPECT_EQ(H::bucket_of(10), 1u);
  EXPECT_EQ(H::bucket_of(11), 2u);
  EXPECT_EQ(H::bucket_of(100), 2u);
  EXPECT_EQ(H::bucket_of(101), 3u);  // +Inf
  EXPECT_EQ(H::bucket_of(UINT64_MAX), 3u);
}

TEST(MetricsHistogram, ObserveCountsPerBucketAndSums) {
  Histogram<kBounds> h;
  for (const std::uint64_t v : {0, 1, 5, 10, 50, 1000, 1000}) h.observe(v);
  EXPECT_EQ(h.bucket(0), 2u);
  EXPECT_EQ(h.bucket(1), 2u);
  EXPECT_EQ(h.bucket(2), 1u);
  EXPECT_EQ(h.bucket(3), 2u);
  EXPECT_EQ(h.sum(), 2066u);
}

TEST(MetricsHistogram, TotalsAddSeveralHistogramsAndCountTheirBuckets) {
  Histogram<kBounds> a;
  Histogram<kBounds> b;
  a.observe(1);
  a.observe(50);
  b.observe(50);
  b.observe(500);
  HistogramTotals<kBounds> totals;
  totals.add(a);
  totals.add(b);
  EXPECT_EQ(totals.buckets, (std::array<std::uint64_t, 4>{1, 0, 2, 1}));
  EXPECT_EQ(totals.sum, 601u);
  EXPECT_EQ(totals.count(), 4u);
}

}  // namespace
}  // namespace sluice::metrics
