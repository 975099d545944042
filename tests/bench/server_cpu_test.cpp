#include "server_cpu.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>

namespace sluice::bench {
namespace {

TEST(ServerCpu, ReadsThisProcessAndGrowsWithWork) {
  const double before = process_cpu_seconds(::getpid());
  ASSERT_GE(before, 0);
  // Spins until the kernel has charged at least two clock ticks more,
  // bounded by a count of iterations, not by time.
  volatile std::uint64_t sink = 0;
  double after = before;
  for (std::uint64_t round = 0; round < 200 && after < before + 0.02; ++round) {
    for (std::uint64_t i = 0; i < 5'000'000; ++i) sink = sink + i;
    after = process_cpu_seconds(::getpid());
  }
  EXPECT_GE(after, before + 0.02);
}

TEST(ServerCpu, AProcessThatIsNotThereReadsNegative) {
  EXPECT_LT(process_cpu_seconds(-1), 0);
  EXPECT_LT(process_cpu_seconds(0x3fffffff), 0);
}

}  // namespace
}  // namespace sluice::bench
