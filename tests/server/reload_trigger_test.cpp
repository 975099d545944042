// ReloadTrigger: a request made where no work may be done (a signal
// handler, another thread) runs the reload on the loop's thread, and
// requests that pile up before the loop looks are one reload.
#include "server/reload_trigger.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace sluice::server {
namespace {

using Clock = std::chrono::steady_clock;

// Runs ticks of `loop` until `done` or a generous deadline.
bool run_until(io::Loop& loop, const std::function<bool()>& done) {
  for (const auto deadline = Clock::now() + std::chrono::seconds(10); Clock::now() < deadline;) {
    if (done()) return true;
    loop.run_once(50);
  }
  return done();
}

TEST(ReloadTrigger, RequestsFromAnotherThreadRunOnTheLoopsThreadFoldedIntoOne) {
  io::Loop loop;
  int reloads = 0;
  std::thread::id ran_on;
  ReloadTrigger trigger([&] {
    ++reloads;
    ran_on = std::this_thread::get_id();
  });
  ASSERT_EQ(trigger.watch(loop), 0);
  std::thread([&] {
    for (int i = 0; i < 3; ++i) trigger.fire();
  }).join();
  ASSERT_TRUE(run_until(loop, [&] { return reloads > 0; }));
  EXPECT_EQ(reloads, 1);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  trigger.fire();
  ASSERT_TRUE(run_until(loop, [&] { return reloads > 1; }));
  EXPECT_EQ(reloads, 2);
  trigger.unwatch();
}

ReloadTrigger* g_trigger = nullptr;
extern "C" void on_test_signal(int) { g_trigger->fire(); }

TEST(ReloadTrigger, ASignalHandlerOnlyAsksAndTheLoopReloads) {
  io::Loop loop;
  int reloads = 0;
  ReloadTrigger trigger([&] { ++reloads; });
  ASSERT_EQ(trigger.watch(loop), 0);
  g_trigger = &trigger;
  struct sigaction action {};
  struct sigaction previous {};
  action.sa_handler = on_test_signal;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(::sigaction(SIGUSR1, &action, &previous), 0);
  ASSERT_EQ(::raise(SIGUSR1), 0);
  EXPECT_EQ(reloads, 0);  // nothing ran in the handler
  EXPECT_TRUE(run_until(loop, [&] { return reloads == 1; }));
  ::sigaction(SIGUSR1, &previous, nullptr);
  g_trigger = nullptr;
  trigger.unwatch();
}

}  // namespace
}  // namespace sluice::server
