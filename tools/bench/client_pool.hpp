// Owns: ClientPool, the bench's multi-threaded subscriber client: T threads,
// each with its own epoll loop and read buffer, sharing N sessions (SSE or
// WebSocket, as SubscriberOptions::proto says) between them, connected a
// window at a time, from several loopback addresses and to several servers
// in turn when asked (for tens of thousands). Sessions are made and run on
// their thread and are never touched by another; the main thread only
// reads the shared counters and, once the threads have stopped, merges
// their histograms. The counters may live outside the pool (in memory
// shared with another process: ClientWorkers).
#pragma once

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "histogram.hpp"
#include "reader_context.hpp"
#include "subscriber.hpp"

namespace sluice::bench {

struct ClientPoolOptions {
  SubscriberOptions session;
  std::size_t sessions = 100;
  std::size_t threads = 1;
  std::uint32_t latency_every = 1;
  // Local addresses 127.0.0.1 .. 127.0.0.<sources> take turns as the
  // sessions' source; 0: the kernel chooses (one address's ports).
  std::size_t sources = 0;
  // When not empty, session i connects to servers[i mod size] rather than
  // to session.server (nodes of one cluster).
  std::vector<io::Endpoint> servers;
  // The index of this pool's first session among all the run's: a pool
  // that holds one share of them (one worker process of several) takes
  // its turn of sources and servers where the previous share left off.
  std::size_t first_session = 0;
  // Sessions of one thread between connect and stream head at most: a
  // thread waits for heads before it connects more, so the server's accept
  // queue never overflows (a dropped SYN costs a second's retransmit).
  std::size_t connect_window = 256;
};

class ClientPool {
 public:
  explicit ClientPool(const ClientPoolOptions& options);
  // Counts into `counters`, which must outlive the pool.
  ClientPool(const ClientPoolOptions& options, StreamCounters& counters);
  ~ClientPool();  // stops and joins
  ClientPool(const ClientPool&) = delete;
  ClientPool& operator=(const ClientPool&) = delete;

  // Starts the threads; each connects its share of the sessions.
  void start();
  // Waits until every session has its stream head or failed; false when
  // `deadline_ns` (now_ns() scale) passed first. Polls the counters: the
  // threads are busy in epoll and have nothing else to signal with.
  bool wait_ready(std::uint64_t deadline_ns) const;
  // Latency samples before now_ns() == from_ns are not recorded (warm-up).
  void record_latency_from(std::uint64_t from_ns);
  // Stops the loops, joins the threads and closes the sessions. Idempotent.
  void stop();
  // Stops the loops and joins the threads, leaving the sessions' sockets
  // open: for a process about to exit, whose kernel closes them all, so
  // that what it reports does not wait on tens of thousands of closes.
  void stop_reading();

  [[nodiscard]] const StreamCounters& counters() const { return counters_; }
  // CPU seconds each reader thread has used so far (while they run).
  [[nodiscard]] std::vector<double> reader_cpu_seconds() const;
  // Valid after stop().
  [[nodiscard]] Histogram latency() const;

 private:
  void run_thread(std::size_t thread, std::size_t first, std::size_t count);

  ClientPoolOptions options_;
  StreamCounters own_counters_;
  StreamCounters& counters_;
  std::vector<std::unique_ptr<ReaderContext>> contexts_;
  // Each thread's sessions, touched only by that thread until it is joined.
  std::vector<std::vector<std::unique_ptr<Subscriber>>> sessions_;
  std::vector<std::thread> threads_;
};

}  // namespace sluice::bench
