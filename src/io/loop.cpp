#include "io/loop.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace sluice::io {

// The eventfd that other threads write to interrupt the loop's wait.
class Loop::Waker final : public Handler {
 public:
  explicit Waker(Loop& loop) : loop_(loop), fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Waker() {
    if (fd_ >= 0) ::close(fd_);
  }
  Waker(const Waker&) = delete;
  Waker& operator=(const Waker&) = delete;

  int fd() const { return fd_; }
  void wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(fd_, &one, sizeof one);
  }
  void on_ready(std::uint32_t) override {
    // One read takes the whole count back to zero: a second would only
    // answer EAGAIN, a system call per wake-up for nothing.
    std::uint64_t count;
    [[maybe_unused]] const auto n = ::read(fd_, &count, sizeof count);
    if (loop_.wake_task_ != nullptr) loop_.defer(loop_.wake_task_);
  }

 private:
  Loop& loop_;
  int fd_;
};

Loop::Loop(BackendKind kind)
    : backend_(kind == BackendKind::epoll ? make_epoll_backend() : make_poll_backend()),
      waker_(std::make_unique<Waker>(*this)),
      ready_(256),
      now_(Clock::now()) {
  deferred_.reserve(256);
  next_tick_.reserve(256);
  watch(waker_->fd(), kReadable, waker_.get());
}

Loop::~Loop() { unwatch(waker_->fd()); }

int Loop::watch(int fd, std::uint32_t interest, Handler* handler) {
  return backend_->add(fd, interest, static_cast<void*>(handler));
}

int Loop::rewatch(int fd, std::uint32_t interest, Handler* handler) {
  return backend_->modify(fd, interest, static_cast<void*>(handler));
}

int Loop::unwatch(int fd) { return backend_->remove(fd); }

Loop::TimerId Loop::every(std::chrono::milliseconds period, std::function<void()> fn) {
  const TimerId id = next_timer_id_++;
  timers_.push_back(std::make_unique<Timer>(Timer{id, Clock::now() + period, period, std::move(fn)}));
  return id;
}

void Loop::cancel(TimerId id) {
  // Marked, not erased: cancel() may be called from inside a timer callback.
  for (auto& t : timers_) {
    if (t->id == id) t->cancelled = true;
  }
}

void Loop::defer(Deferred* work) {
  if (work->deferred_queued_) return;
  work->deferred_queued_ = true;
  (work->ran_in_tick_ == tick_ ? next_tick_ : deferred_).push_back(work);
}

void Loop::forget(Deferred* work) {
  if (!work->deferred_queued_) return;
  work->deferred_queued_ = false;
  std::replace(deferred_.begin(), deferred_.end(), work, static_cast<Deferred*>(nullptr));
  std::replace(next_tick_.begin(), next_tick_.end(), work, static_cast<Deferred*>(nullptr));
}

int Loop::wait_budget_ms(int max_wait_ms) const {
  if (!deferred_.empty() || !reads_.empty()) return 0;
  int budget = max_wait_ms;
  for (const auto& t : timers_) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(t->due - Clock::now()).count();
    const int ms = static_cast<int>(std::max<decltype(left)>(left, 0));
    budget = budget < 0 ? ms : std::min(budget, ms);
  }
  return budget;
}

void Loop::run_once(int max_wait_ms) {
  const int n = backend_->wait(ready_, wait_budget_ms(max_wait_ms));
  now_ = Clock::now();
  reads_.start_tick();
  if (n > 0) dispatch(n);
  fire_timers();
  // After the events, so that a connection whose request was just reported
  // reads it before the line of those that always have more; before the
  // deferred list, so that what the turns produced is flushed this tick.
  reads_.serve();
  run_deferred_list();
}

void Loop::dispatch(int count) {
  for (int i = 0; i < count; ++i) {
    static_cast<Handler*>(ready_[i].tag)->on_ready(ready_[i].events);
  }
}

void Loop::fire_timers() {
  // Index loop: a timer callback may add or cancel timers.
  for (std::size_t i = 0; i < timers_.size(); ++i) {
    Timer& t = *timers_[i];
    if (t.cancelled || t.due > now_) continue;
    t.due = now_ + t.period;
    t.fn();
  }
  std::erase_if(timers_, [](const auto& t) { return t->cancelled; });
}

void Loop::run_deferred_list() {
  // Deferred work may defer other work (a flush that closes a connection
  // queues its reaping), so the list is walked until it stays empty; work
  // that ran already has gone to next_tick_ instead, so the walk ends.
  for (std::size_t i = 0; i < deferred_.size(); ++i) {
    Deferred* work = deferred_[i];
    if (work == nullptr) continue;
    work->deferred_queued_ = false;
    work->ran_in_tick_ = tick_;
    work->run_deferred();
  }
  deferred_.clear();
  deferred_.swap(next_tick_);
  ++tick_;
}

void Loop::run() {
  while (!stopping()) run_once();
}

void Loop::stop() {
  stop_requested_.store(true, std::memory_order_release);
  wake();
}

void Loop::wake() { waker_->wake(); }

}  // namespace sluice::io
