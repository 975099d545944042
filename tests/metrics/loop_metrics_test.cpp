#include "metrics/loop_metrics.hpp"

#include <gtest/gtest.h>

#include "delivery/policy.hpp"

namespace sluice::metrics {
namespace {

// The policy label of each series is the name the server uses for that
// policy, at the same index: a loop indexes the arrays by the policy enum.
TEST(MetricsLoopMetrics, PolicyLabelsAreTheServersPolicyNamesInOrder) {
  ASSERT_EQ(kPolicyLabels.size(), static_cast<std::size_t>(kPolicyCount));
  for (int i = 0; i < kPolicyCount; ++i) {
    EXPECT_EQ(kPolicyLabels[i], delivery::policy_name(static_cast<Policy>(i)));
  }
}

TEST(MetricsLoopMetrics, StreamTransportsComeFirst) {
  EXPECT_LT(static_cast<std::size_t>(Transport::sse), kStreamTransports);
  EXPECT_LT(static_cast<std::size_t>(Transport::ws), kStreamTransports);
  EXPECT_GE(static_cast<std::size_t>(Transport::http), kStreamTransports);
}

}  // namespace
}  // namespace sluice::metrics
