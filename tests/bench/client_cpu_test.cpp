#include "client_cpu.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace sluice::bench {
namespace {

TEST(ClientCpu, ThisProcessCpuGrowsWithWork) {
  const double before = self_cpu_seconds();
  volatile std::uint64_t sink = 0;
  double after = before;
  // Bounded by iterations: until the kernel has charged 20 ms more.
  for (int round = 0; round < 200 && after < before + 0.02; ++round) {
    for (std::uint64_t i = 0; i < 5'000'000; ++i) sink = sink + i;
    after = self_cpu_seconds();
  }
  EXPECT_GE(after, before + 0.02);
  EXPECT_GE(allowed_cores(), 1u);
}

TEST(ClientCpu, TheClientIsTheLimitWhenAReaderOrTheProcessIsBusy) {
  EXPECT_FALSE(client_was_limit(0.5, 0.8, 1));
  EXPECT_TRUE(client_was_limit(0.95, 0.95, 2)) << "one reader thread can use one core at most";
  EXPECT_TRUE(client_was_limit(0.6, 0.95, 1));
  EXPECT_FALSE(client_was_limit(0.6, 1.2, 2));
  EXPECT_TRUE(client_was_limit(0.6, 1.9, 2));
}

}  // namespace
}  // namespace sluice::bench
