// Owns: Worker, one event loop and everything it serves: its pool, its hub,
// its listening socket and its sessions. A session belongs to one worker for
// its whole life and no other thread touches it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "sluice/buf/pool.hpp"
#include "sluice/hub/hub.hpp"
#include "sluice/io/loop.hpp"
#include "sluice/server/config.hpp"

namespace sluice::server {

class Session;

struct WorkerStats {
  std::size_t sessions = 0;
  std::size_t streams = 0;  // SSE streams and WebSockets open
  std::uint64_t accepted = 0;
  std::uint64_t refused_full = 0;       // accepted past max_connections, sent 503
  std::uint64_t slow_disconnects = 0;   // closed because the send budget was spent
  std::uint64_t events_dropped = 0;     // dropped or conflated by a policy, and reported
  std::uint64_t protocol_errors = 0;    // WebSocket connections failed with 1002/1007/1009
};

class Worker final : public io::Handler, public io::Deferred {
 public:
  // `config` must outlive the worker. `epoch` names this run in event ids.
  Worker(const Config& config, std::string epoch);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Serves `listen_fd` (non-blocking, listening) until stop(). Then stops
  // accepting, lets every session flush and close (bounded by the linger
  // timeout), and returns.
  void run(int listen_fd);
  void stop() { loop_.stop(); }

  [[nodiscard]] io::Loop& loop() { return loop_; }
  [[nodiscard]] buf::Pool& pool() { return pool_; }
  [[nodiscard]] hub::Hub& hub() { return hub_; }
  [[nodiscard]] const Config& config() const { return config_; }
  [[nodiscard]] const WorkerStats& stats() const { return stats_; }
  [[nodiscard]] WorkerStats& mutable_stats() { return stats_; }
  // The WebSocket handshake's options, as views of the config's lists.
  [[nodiscard]] std::span<const std::string_view> subprotocols() const { return subprotocols_; }
  [[nodiscard]] std::span<const std::string_view> allowed_origins() const { return allowed_origins_; }

  // Called by a session from on_closed(): it is destroyed at the end of the
  // tick, once no ready event can still name it.
  void retire(Session* session);

 private:
  void on_ready(std::uint32_t events) override;  // the listener
  void run_deferred() override;                  // reaps retired sessions
  void accept_all();
  void admit(int fd);
  void refuse(int fd);
  void send_heartbeats();
  void sweep();
  void drain_on_shutdown();

  const Config& config_;
  io::Loop loop_;
  buf::Pool pool_;
  hub::Hub hub_;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<Session*> retired_;
  WorkerStats stats_;
  std::vector<std::string_view> subprotocols_;
  std::vector<std::string_view> allowed_origins_;
};

}  // namespace sluice::server
