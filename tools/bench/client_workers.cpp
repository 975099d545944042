#include "client_workers.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <thread>

#include "clock.hpp"

namespace sluice::bench {

namespace {

// How long a worker may take to apply a command or to exit once told to.
constexpr std::uint64_t kExitWaitNs = 10 * kNsPerSec;

}  // namespace

std::vector<WorkerShare> split_sessions(std::size_t sessions, std::size_t workers) {
  workers = std::max<std::size_t>(1, workers);
  std::vector<WorkerShare> shares;
  std::size_t first = 0;
  for (std::size_t i = 0; i < workers; ++i) {
    const std::size_t count = sessions / workers + (i < sessions % workers ? 1 : 0);
    shares.push_back({.first = first, .count = count});
    first += count;
  }
  return shares;
}

std::size_t workers_for(std::size_t sessions, std::size_t per_worker) {
  per_worker = std::max<std::size_t>(1, per_worker);
  return std::max<std::size_t>(1, (sessions + per_worker - 1) / per_worker);
}

ClientWorkers::ClientWorkers(const ClientPoolOptions& options, std::size_t workers)
    : options_(options), shares_(split_sessions(options.sessions, workers)) {}

ClientWorkers::~ClientWorkers() {
  stop();
  if (slots_ != nullptr) {
    for (std::size_t i = 0; i < shares_.size(); ++i) slots_[i].~Slot();
    ::munmap(slots_, sizeof(Slot) * shares_.size());
  }
}

std::string ClientWorkers::start() {
  void* mapping = ::mmap(nullptr, sizeof(Slot) * shares_.size(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return std::string("cannot map the workers' shared memory: ") + std::strerror(errno);
  slots_ = static_cast<Slot*>(mapping);
  for (std::size_t i = 0; i < shares_.size(); ++i) new (&slots_[i]) Slot();
  const pid_t parent = ::getpid();
  for (std::size_t i = 0; i < shares_.size(); ++i) {
    // A socket pair rather than a pipe: a message to a worker that has
    // gone fails with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE.
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
      return std::string("cannot make a worker's control socket: ") + std::strerror(errno);
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      return std::string("cannot fork a worker: ") + std::strerror(errno);
    }
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);  // the parent ended before the call
      ::close(fds[1]);
      // The earlier workers' sockets: held here, they would never see EOF.
      for (const int fd : control_fds_) ::close(fd);
      run_worker(i, fds[0]);
    }
    ::close(fds[0]);
    pids_.push_back(pid);
    control_fds_.push_back(fds[1]);
  }
  return "";
}

void ClientWorkers::run_worker(std::size_t index, int control_fd) {
  ClientPoolOptions options = options_;
  options.sessions = shares_[index].count;
  options.first_session = options_.first_session + shares_[index].first;
  Slot& slot = slots_[index];
  ClientPool pool(options, slot.counters);
  if (options.sessions > 0) pool.start();
  Message message{};
  // Blocks until the parent says something; EOF (the parent closed the
  // socket or is gone) or an error means stop.
  while (::recv(control_fd, &message, sizeof message, 0) == static_cast<ssize_t>(sizeof message)) {
    if (message.command == Command::stop) break;
    pool.record_latency_from(message.value);
    slot.applied.fetch_add(1, std::memory_order_release);
  }
  pool.stop_reading();
  slot.latency = pool.latency();
  slot.reported.store(true, std::memory_order_release);
  // No destructor, atexit handler or stdio flush of the parent's state;
  // the kernel closes the sessions' sockets.
  ::_exit(0);
}

void ClientWorkers::send(std::size_t worker, Message message) {
  // One datagram: sent whole or not at all. A worker that has gone
  // (EPIPE) is found in stop().
  [[maybe_unused]] const ssize_t n = ::send(control_fds_[worker], &message, sizeof message, MSG_NOSIGNAL);
}

bool ClientWorkers::wait_ready(std::uint64_t deadline_ns) const {
  while (total(&StreamCounters::ready) + total(&StreamCounters::failed) < options_.sessions) {
    if (now_ns() >= deadline_ns) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return total(&StreamCounters::failed) == 0;
}

bool ClientWorkers::record_latency_from(std::uint64_t from_ns) {
  for (std::size_t i = 0; i < control_fds_.size(); ++i) send(i, {.command = Command::record_from, .value = from_ns});
  ++marks_sent_;
  // The mark is sent, not yet applied: an event published before a worker
  // applies it would be sampled against the old mark.
  const std::uint64_t deadline = now_ns() + kExitWaitNs;
  for (std::size_t i = 0; i < control_fds_.size(); ++i) {
    while (slots_[i].applied.load(std::memory_order_acquire) < marks_sent_) {
      if (now_ns() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
  return true;
}

void ClientWorkers::stop() {
  if (stopped_ || slots_ == nullptr) return;
  stopped_ = true;
  for (std::size_t i = 0; i < control_fds_.size(); ++i) {
    send(i, {.command = Command::stop, .value = 0});
    ::close(control_fds_[i]);
  }
  control_fds_.clear();
  const std::uint64_t deadline = now_ns() + kExitWaitNs;
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    int status = 0;
    // Polled with a deadline: a worker stuck in its loop is killed rather
    // than waited for forever.
    pid_t done = 0;
    while ((done = ::waitpid(pids_[i], &status, WNOHANG)) == 0 && now_ns() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (done == 0) {
      ::kill(pids_[i], SIGKILL);
      ::waitpid(pids_[i], &status, 0);
    }
    if (slots_[i].reported.load(std::memory_order_acquire)) latency_.merge(slots_[i].latency);
    else ++lost_;
  }
}

std::uint64_t ClientWorkers::total(std::atomic<std::uint64_t> StreamCounters::*counter) const {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < shares_.size() && slots_ != nullptr; ++i) sum += of(i, counter);
  return sum;
}

std::uint64_t ClientWorkers::of(std::size_t worker, std::atomic<std::uint64_t> StreamCounters::*counter) const {
  return slots_ == nullptr ? 0 : (slots_[worker].counters.*counter).load(std::memory_order_relaxed);
}

}  // namespace sluice::bench
