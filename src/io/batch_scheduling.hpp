// Owns: BatchScheduling, which runs the calling thread under Linux's
// SCHED_BATCH policy for as long as it lives, and restores its policy after.
//
// A loop is woken by the threads that publish into it. Under the normal
// policy the woken loop preempts a publisher on its core at once, drains
// the few events published so far, writes them, sleeps, and hands the
// core back: two context switches and a send (with the reader's wake-up)
// for every few events. Under SCHED_BATCH a woken loop waits until the
// publisher on its core waits itself or its slice ends, then drains what
// came meanwhile in one go. Loops on cores of their own are unaffected;
// a loop that shares its core with a busy thread may start a slice (a few
// milliseconds) later. Only a thread under the normal policy is moved (one
// the application put under another keeps it); other systems run as
// before, and error() says why the thread was not moved.
#pragma once

namespace sluice::io {

class BatchScheduling {
 public:
  // Does nothing when `on` is false.
  explicit BatchScheduling(bool on);
  ~BatchScheduling();
  BatchScheduling(const BatchScheduling&) = delete;
  BatchScheduling& operator=(const BatchScheduling&) = delete;

  // Whether the thread runs under SCHED_BATCH because of this object.
  [[nodiscard]] bool active() const { return active_; }
  // Asked and not moved: the errno why (EPERM also for a thread under
  // another policy than the normal one, ENOSYS off Linux); else 0.
  [[nodiscard]] int error() const { return error_; }

 private:
  bool active_ = false;
  int error_ = 0;
  int old_policy_ = 0;
};

}  // namespace sluice::io
