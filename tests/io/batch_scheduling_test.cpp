#include "io/batch_scheduling.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <cerrno>
#include <thread>

namespace sluice::io {
namespace {

// On a thread of its own, so that the test runner's policy is never touched.
TEST(BatchScheduling, RunsTheThreadAsBatchWhileItLivesAndRestoresItsPolicy) {
  if (sched_getscheduler(0) != SCHED_OTHER) GTEST_SKIP() << "the runner is not under the normal policy";
  int before = -1;
  int during = -1;
  int after = -1;
  bool active = false;
  std::thread([&] {
    before = sched_getscheduler(0);
    {
      const BatchScheduling scheduling(true);
      active = scheduling.active();
      during = sched_getscheduler(0);
    }
    after = sched_getscheduler(0);
  }).join();
  EXPECT_EQ(before, SCHED_OTHER);
  EXPECT_TRUE(active);
  EXPECT_EQ(during, SCHED_BATCH);
  EXPECT_EQ(after, SCHED_OTHER);
}

// A thread the application put under another policy keeps it, and hears why.
TEST(BatchScheduling, LeavesAThreadUnderAnotherPolicyAlone) {
  int during = -1;
  int error = 0;
  std::thread([&] {
    const sched_param zero{};
    ASSERT_EQ(sched_setscheduler(0, SCHED_IDLE, &zero), 0);
    const BatchScheduling scheduling(true);
    error = scheduling.error();
    during = sched_getscheduler(0);
  }).join();
  EXPECT_EQ(during, SCHED_IDLE);
  EXPECT_EQ(error, EPERM);
}

TEST(BatchScheduling, OffChangesNothing) {
  if (sched_getscheduler(0) != SCHED_OTHER) GTEST_SKIP() << "the runner is not under the normal policy";
  int during = -1;
  bool active = true;
  std::thread([&] {
    const BatchScheduling scheduling(false);
    active = scheduling.active();
    during = sched_getscheduler(0);
  }).join();
  EXPECT_FALSE(active);
  EXPECT_EQ(during, SCHED_OTHER);
}

}  // namespace
}  // namespace sluice::io
