#include "io/batch_scheduling.hpp"

#include <cerrno>

#if defined(__linux__)
#include <sched.h>
#endif

namespace sluice::io {

#if defined(__linux__)

// Only from the normal policy: a thread the application put under a
// real-time policy could not come back to it unprivileged, and one under
// SCHED_IDLE would be raised. SCHED_RESET_ON_FORK is kept (an unprivileged
// thread may not drop it). Priority 0 is the only one SCHED_BATCH takes
// (0 names the calling thread).
BatchScheduling::BatchScheduling(bool on) {
  if (!on) return;
  const int policy = sched_getscheduler(0);
  if (policy < 0) {
    error_ = errno;
    return;
  }
  if ((policy & ~SCHED_RESET_ON_FORK) != SCHED_OTHER) {
    error_ = EPERM;
    return;
  }
  const sched_param zero{};
  if (sched_setscheduler(0, SCHED_BATCH | (policy & SCHED_RESET_ON_FORK), &zero) != 0) {
    error_ = errno;
    return;
  }
  active_ = true;
  old_policy_ = policy;
}

// Back to the normal policy, which a thread may always return to.
BatchScheduling::~BatchScheduling() {
  if (!active_) return;
  const sched_param zero{};
  (void)sched_setscheduler(0, old_policy_, &zero);
}

#else

BatchScheduling::BatchScheduling(bool on) : error_(on ? ENOSYS : 0) {}
BatchScheduling::~BatchScheduling() = default;

#endif

}  // namespace sluice::io
