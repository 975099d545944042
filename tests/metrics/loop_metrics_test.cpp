#include "metrics/loop_metrics.hpp"

#include <gtest/gtest.h>

#include "sluice/conn/policy.hpp"

namespace sluice::metrics {
namespace {

// The policy label of each series is the name the server uses for that
// policy, at the same index: a loop indexes the arrays by the policy enum.
TEST(MetricsLoopMetrics, PolicyLabelsAreTheServersPolicyNamesInOrder) {
  ASSERT_EQ(kPolicyLabels.size(), static_cast<std::size_t>(conn::kPolicyCount));
  for (int i = 0; i < conn::kPolicyCount; ++i) {
    EXPECT_EQ(kPolicyLabels[i], conn::policy_name(static_cast<conn::Policy>(i)));
  }
}

TEST(MetricsLoopMetrics, StreamTransportsComeFirst) {
  EXPECT_LT(static_cast<std::size_t>(Transport::sse), kStreamTransports);
  EXPECT_LT(static_cast<std::size_t>(Transport::ws), kStreamTransports);
  EXPECT_GE(static_cast<std::size_t>(Transport::http), kStreamTransports);
}

}  // namespace
}  // namespace sluice::metrics
