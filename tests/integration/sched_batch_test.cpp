// sched_batch = 1 runs every loop under SCHED_BATCH (io/batch_scheduling.hpp),
// loop 0 included, which runs on the thread that called Server::run; by
// default none does. The loops serve as before either way.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "test_client.hpp"

namespace sluice::test {
namespace {

// This process's threads now under SCHED_BATCH.
int batch_threads() {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  while (const dirent* entry = readdir(tasks)) {
    const int tid = std::atoi(entry->d_name);
    if (tid > 0 && sched_getscheduler(tid) == SCHED_BATCH) ++count;
  }
  closedir(tasks);
  return count;
}

// The thread that calls run() is the application's: it has its policy
// back when run() returns, before the thread ends.
TEST(SchedBatch, EveryLoopRunsUnderSchedBatchWhenAskedAndRunGivesThePolicyBack) {
  if (sched_getscheduler(0) != SCHED_OTHER) GTEST_SKIP() << "the runner is not under the normal policy";
  server::Config config;
  config.threads = 2;
  config.sched_batch = 1;
  server::Server server(config);
  ASSERT_EQ(server.bind(), 0);
  std::atomic<int> after_run{-1};
  std::thread application([&] {
    server.run();
    after_run = sched_getscheduler(0);
  });
  // Each loop takes its policy as it starts, after the port is answered.
  EXPECT_TRUE(wait_until([] { return batch_threads() == 2; })) << batch_threads();
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/news", "x").status, 200);
  server.stop();
  application.join();
  EXPECT_EQ(after_run.load(), SCHED_OTHER);
}

TEST(SchedBatch, ByDefaultNoLoopDoes) {
  server::Config config;
  config.threads = 2;
  RunningServer running(config);
  EXPECT_EQ(http_request(running.port(), "POST", "/pub/news", "x").status, 200);
  EXPECT_EQ(batch_threads(), 0);
}

}  // namespace
}  // namespace sluice::test
