#include "histogram.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace sluice::bench {
namespace {

TEST(Histogram, SmallValuesAreExact) {
  Histogram h;
  for (std::uint64_t v = 0; v < 64; ++v) h.record(v);
  EXPECT_EQ(h.count(), 64u);
  EXPECT_EQ(h.percentile(50), 31u);
  EXPECT_EQ(h.percentile(100), 63u);
  EXPECT_EQ(h.min(), 0u);
}

TEST(Histogram, EveryValueLandsInABucketWithinThreePercent) {
  for (std::uint64_t v : std::initializer_list<std::uint64_t>{64, 100, 12345, 1'000'000, 987'654'321, 1ull << 40, UINT64_MAX / 3}) {
    const double middle = static_cast<double>(Histogram::bucket_value(Histogram::bucket_of(v)));
    EXPECT_LE(std::abs(middle - static_cast<double>(v)) / static_cast<double>(v), 1.0 / 32) << v;
    EXPECT_LT(Histogram::bucket_of(v), Histogram::kBuckets);
  }
  EXPECT_EQ(Histogram::bucket_of(UINT64_MAX), Histogram::kBuckets - 1);
}

TEST(Histogram, PercentilesOfAUniformSpread) {
  Histogram h;
  for (std::uint64_t v = 1; v <= 100'000; ++v) h.record(v * 1000);
  EXPECT_NEAR(static_cast<double>(h.percentile(50)), 50e6, 50e6 / 32);
  EXPECT_NEAR(static_cast<double>(h.percentile(99)), 99e6, 99e6 / 32);
  EXPECT_NEAR(static_cast<double>(h.percentile(99.9)), 99.9e6, 99.9e6 / 32);
  EXPECT_EQ(h.max(), 100'000'000u);
  EXPECT_EQ(h.percentile(100), 100'000'000u);
}

TEST(Histogram, MergeAddsCountsAndKeepsExtremes) {
  Histogram a;
  Histogram b;
  a.record(10);
  b.record(5'000'000);
  a.merge(b);
  EXPECT_EQ(a.count(), 2u);
  EXPECT_EQ(a.min(), 10u);
  EXPECT_EQ(a.max(), 5'000'000u);
  EXPECT_EQ(a.percentile(50), 10u);
}

}  // namespace
}  // namespace sluice::bench
