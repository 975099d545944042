// Owns: Loop, one thread's event loop: readiness from a Backend, timers,
// end-of-tick work, and a wake-up that other threads may trigger.
//
// One tick, in order (see run_once): wait for readiness or the next timer;
// dispatch ready handlers; fire due timers; give the readers waiting in the
// read queue their turns, within the tick's read budget; run the deferred
// list. Handlers that produce output do not write at once: they defer()
// themselves, so a connection flushes once per tick however many events it
// was handed (Redis' pending-write list, uWS's cork).
//
// Everything but wake() and stop() must be called on the loop's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "io/backend.hpp"
#include "io/read_queue.hpp"

namespace sluice::io {

class Handler {
 public:
  // Called with the Ready bits that fired.
  virtual void on_ready(std::uint32_t events) = 0;

 protected:
  ~Handler() = default;
};

// Work to run once at the end of the current tick (or of the next, when it
// has already run in this one).
class Deferred {
 public:
  virtual void run_deferred() = 0;

 protected:
  ~Deferred() = default;

 private:
  friend class Loop;
  bool deferred_queued_ = false;
  std::uint64_t ran_in_tick_ = 0;
};

enum class BackendKind : std::uint8_t { epoll, poll };

class Loop {
 public:
  using Clock = std::chrono::steady_clock;
  using TimerId = std::uint64_t;

  explicit Loop(BackendKind kind = BackendKind::epoll);
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // Each returns 0 or -errno. A handler must outlive its registration.
  int watch(int fd, std::uint32_t interest, Handler* handler);
  int rewatch(int fd, std::uint32_t interest, Handler* handler);
  int unwatch(int fd);
  [[nodiscard]] bool edge_triggered() const { return backend_->edge_triggered(); }

  // Calls `fn` every `period` until cancel(). Timers are few (heartbeats,
  // sweeps), so they live in a short vector scanned once per tick.
  TimerId every(std::chrono::milliseconds period, std::function<void()> fn);
  void cancel(TimerId id);

  // Queues `work` for the end of this tick; a second call before it runs is
  // a no-op. Work that has already run this tick is queued for the next
  // one, which then polls the sockets without waiting: a connection that
  // re-arms itself on every run (a publisher whose replies drained while its
  // next requests already wait) gets one turn per tick, not the whole loop.
  // forget() takes it off the lists (for work being destroyed).
  void defer(Deferred* work);
  void forget(Deferred* work);

  // The line of sockets waiting for a read turn, and the tick's read
  // budget that every read on this loop counts against.
  [[nodiscard]] ReadQueue& reads() { return reads_; }

  // The time the current tick started: cheap, and the same for all handlers.
  [[nodiscard]] Clock::time_point now() const { return now_; }

  void run_once(int max_wait_ms = -1);
  // Runs ticks until stop().
  void run();
  // Thread-safe: makes run() return after the current tick.
  void stop();
  // Thread-safe: interrupts a wait so that the loop runs a tick now.
  void wake();
  // Work deferred on every wake() (say, draining an inbox other threads
  // fill); set before run().
  void set_wake_task(Deferred* task) { wake_task_ = task; }
  [[nodiscard]] bool stopping() const { return stop_requested_.load(std::memory_order_acquire); }

 private:
  struct Timer {
    TimerId id;
    Clock::time_point due;
    std::chrono::milliseconds period;
    std::function<void()> fn;
    bool cancelled = false;
  };
  class Waker;

  int wait_budget_ms(int max_wait_ms) const;
  void dispatch(int count);
  void fire_timers();
  void run_deferred_list();

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Waker> waker_;
  std::vector<ReadyEvent> ready_;
  std::vector<std::unique_ptr<Timer>> timers_;  // stable: callbacks may add timers
  std::vector<Deferred*> deferred_;
  std::vector<Deferred*> next_tick_;
  ReadQueue reads_;
  std::uint64_t tick_ = 1;
  Deferred* wake_task_ = nullptr;
  TimerId next_timer_id_ = 1;
  Clock::time_point now_;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace sluice::io
