#include "metrics/exposition.hpp"

#include <gtest/gtest.h>

#include <array>
#include <limits>

namespace sluice::metrics {
namespace {

TEST(MetricsExposition, WritesHelpTypeAndSamples) {
  std::string text;
  Exposition out(text);
  out.family("x_total", Type::counter, "Things.");
  out.sample("x_total", {}, std::uint64_t{18446744073709551615u});
  out.family("y", Type::gauge, "A level.");
  out.sample("y", {{"kind", "a"}, {"side", "b"}}, std::int64_t{-3});
  out.sample("y", {{"kind", "c"}}, 0.25);
  EXPECT_EQ(text,
            "# HELP x_total Things.\n# TYPE x_total counter\nx_total 18446744073709551615\n"
            "# HELP y A level.\n# TYPE y gauge\ny{kind=\"a\",side=\"b\"} -3\ny{kind=\"c\"} 0.25\n");
}

TEST(MetricsExposition, EscapesHelpAndLabelValues) {
  std::string text;
  Exposition out(text);
  out.family("z", Type::gauge, "back\\slash \"quoted\"\nnext line");
  out.sample("z", {{"v", "a\\b\"c\nd"}}, 1);
  EXPECT_EQ(text,
            "# HELP z back\\\\slash \"quoted\"\\nnext line\n# TYPE z gauge\n"
            "z{v=\"a\\\\b\\\"c\\nd\"} 1\n");
}

TEST(MetricsExposition, DoublesInFixedNotationAndSpecialValues) {
  std::string text;
  Exposition out(text);
  out.sample("a", {}, 0.0001);
  out.sample("b", {}, 1e21);
  out.sample("c", {}, std::numeric_limits<double>::infinity());
  out.sample("d", {}, -std::numeric_limits<double>::infinity());
  out.sample("e", {}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(text, "a 0.0001\nb 1000000000000000000000\nc +Inf\nd -Inf\ne NaN\n");
}

TEST(MetricsExposition, HistogramHasRunningBucketsSumAndCount) {
  std::string text;
  Exposition out(text);
  constexpr std::array<std::uint64_t, 2> kBounds{250, 1000};
  const std::array<std::uint64_t, 3> buckets{1, 2, 3};
  out.histogram("h_seconds", {{"t", "x"}}, kBounds, buckets, 1500, 1e6);
  EXPECT_EQ(text,
            "h_seconds_bucket{t=\"x\",le=\"0.00025\"} 1\n"
            "h_seconds_bucket{t=\"x\",le=\"0.001\"} 3\n"
            "h_seconds_bucket{t=\"x\",le=\"+Inf\"} 6\n"
            "h_seconds_sum{t=\"x\"} 0.0015\n"
            "h_seconds_count{t=\"x\"} 6\n");
}

TEST(MetricsExposition, HistogramWithoutLabelsOrScale) {
  std::string text;
  Exposition out(text);
  constexpr std::array<std::uint64_t, 1> kBounds{4};
  const std::array<std::uint64_t, 2> buckets{0, 2};
  out.histogram("n", {}, kBounds, buckets, 20);
  EXPECT_EQ(text, "n_bucket{le=\"4\"} 0\nn_bucket{le=\"+Inf\"} 2\nn_sum 20\nn_count 2\n");
}

}  // namespace
}  // namespace sluice::metrics
