#include "server_cpu.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
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
  EXPECT_LT(process_rss_bytes(0x3fffffff), 0);
}

// nginx started from a script is a tree: a child's work counts.
TEST(ServerCpu, CountsTheWorkOfAChildProcess) {
  const double before = process_cpu_seconds(::getpid());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    volatile std::uint64_t sink = 0;
    for (std::uint64_t i = 0; i < 20'000'000'000ull; ++i) sink = sink + i;  // killed long before
    ::_exit(0);
  }
  // This process only waits; what it gains is the child's.
  double after = before;
  for (int round = 0; round < 1000 && after < before + 0.05; ++round) {
    ::poll(nullptr, 0, 10);
    after = process_cpu_seconds(::getpid());
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_GE(after, before + 0.05);
}

TEST(ServerCpu, ReadsResidentMemory) {
  const std::int64_t rss = process_rss_bytes(::getpid());
  EXPECT_GT(rss, 1 << 20);
  EXPECT_LT(rss, std::int64_t{1} << 40);
}

}  // namespace
}  // namespace sluice::bench
