// Owns: ClientWorkers, the subscribers of one run split over K forked
// worker processes, each a ClientPool holding its share. A process may
// hold only as many sockets as RLIMIT_NOFILE allows (20,000 on the box the
// figures come from, and only CAP_SYS_RESOURCE raises the hard limit), so
// 100,000 subscribers need several processes; the limit is per process,
// not per machine.
//
// The parent and its workers share one mapping (MAP_SHARED, made before
// the fork): a slot per worker with its pool's counters, which the worker's
// threads update as they read and the parent sums while they run (lock-free
// atomics work across processes on one mapping), and its latency histogram,
// which the worker copies there once its pool has stopped. The parent
// steers a worker through a socket pair, one fixed-size datagram per
// command (record latency from, stop); a worker whose socket ends (the
// parent gone) stops too, and the kernel kills it if the parent dies
// first (PR_SET_PDEATHSIG).
// Latency samples compare the publisher's stamp with the reader's clock
// across processes: CLOCK_MONOTONIC is one clock for the whole machine.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "client_pool.hpp"
#include "histogram.hpp"
#include "reader_context.hpp"

namespace sluice::bench {

// One worker's part of the run's sessions: [first, first + count).
struct WorkerShare {
  std::size_t first = 0;
  std::size_t count = 0;
};

// `sessions` split over `workers` in order, the shares differing by at
// most one session (the first ones take the remainder).
[[nodiscard]] std::vector<WorkerShare> split_sessions(std::size_t sessions, std::size_t workers);

// Workers needed so that none holds more than `per_worker` sessions (at
// least one).
[[nodiscard]] std::size_t workers_for(std::size_t sessions, std::size_t per_worker);

class ClientWorkers {
 public:
  // What a worker leaves for the parent in the shared mapping.
  struct Slot {
    StreamCounters counters;
    Histogram latency;                     // valid once `reported`
    std::atomic<bool> reported{false};
    std::atomic<std::uint64_t> applied{0};  // record_from commands the worker has applied
  };

  // `options.sessions` sessions over `workers` processes; each worker's
  // pool runs `options.threads` threads.
  ClientWorkers(const ClientPoolOptions& options, std::size_t workers);
  ~ClientWorkers();  // stops, reaps
  ClientWorkers(const ClientWorkers&) = delete;
  ClientWorkers& operator=(const ClientWorkers&) = delete;

  // Forks the workers; each starts its pool at once. An error line, or "".
  [[nodiscard]] std::string start();
  // As ClientPool::wait_ready, over every worker's sessions.
  [[nodiscard]] bool wait_ready(std::uint64_t deadline_ns) const;
  // As ClientPool::record_latency_from, and like it in effect when it
  // returns: each worker acknowledges the mark (through its slot) before
  // the parent goes on to publish. False when one did not within 10 s.
  [[nodiscard]] bool record_latency_from(std::uint64_t from_ns);
  // Tells every worker to stop, waits (10 s at most, then SIGKILL) for it
  // to exit, and merges what each reported. Idempotent.
  void stop();

  // The sum of one counter over the workers, while they run.
  [[nodiscard]] std::uint64_t total(std::atomic<std::uint64_t> StreamCounters::*counter) const;
  // One worker's counter.
  [[nodiscard]] std::uint64_t of(std::size_t worker, std::atomic<std::uint64_t> StreamCounters::*counter) const;
  [[nodiscard]] std::size_t size() const { return shares_.size(); }
  [[nodiscard]] const std::vector<WorkerShare>& shares() const { return shares_; }
  [[nodiscard]] const std::vector<pid_t>& pids() const { return pids_; }
  // Valid after stop(): every reporting worker's samples merged.
  [[nodiscard]] const Histogram& latency() const { return latency_; }
  // Workers that exited without reporting (killed, or crashed); after stop().
  [[nodiscard]] std::size_t lost() const { return lost_; }

 private:
  enum class Command : std::uint8_t { record_from, stop };
  struct Message {
    Command command;
    std::uint64_t value;
  };

  [[noreturn]] void run_worker(std::size_t index, int control_fd);
  void send(std::size_t worker, Message message);

  ClientPoolOptions options_;
  std::vector<WorkerShare> shares_;
  Slot* slots_ = nullptr;  // shares_.size() of them, in the shared mapping
  std::vector<pid_t> pids_;
  std::vector<int> control_fds_;  // the parent's ends
  std::uint64_t marks_sent_ = 0;
  Histogram latency_;
  std::size_t lost_ = 0;
  bool stopped_ = false;
};

}  // namespace sluice::bench
