// Owns: Server, the library's front door: the shared pool and topic book,
// one Worker (event loop) per thread, their listening sockets, and a
// graceful stop.
//
//   sluice::server::Config config;            // defaults, or load_config_file()
//   sluice::server::Server server(config);
//   if (server.bind() != 0) ...;              // -errno
//   server.run();                             // until stop(), from any thread
//
// Each loop has its own listening socket on the same port (SO_REUSEPORT):
// the kernel spreads new connections over the loops, and a connection
// stays on the loop that accepted it.
#pragma once

#include <chrono>
#include <cstdint>
#include <atomic>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "buf/pool.hpp"
#include "hub/topic_book.hpp"
#include "sluice/config.hpp"
#include "server/connection_ref.hpp"
#include "server/worker.hpp"
#include "session/services.hpp"

namespace sluice::server {

// A snapshot of every loop's counters, added up.
struct ServerStats {
  std::uint64_t accepted = 0;
  std::uint64_t refused_full = 0;
  std::uint64_t streams = 0;
  std::uint64_t slow_disconnects = 0;
  std::uint64_t events_dropped = 0;
  std::uint64_t protocol_errors = 0;
  std::uint64_t sends_to_closed = 0;
  std::uint64_t publishes_held = 0;
};

class Server {
 public:
  // `config` is copied; validate() it first (sluiced does).
  explicit Server(const Config& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens on config.listen, one socket per loop. Returns 0 or
  // -errno.
  [[nodiscard]] int bind();
  // The bound port (useful with port 0).
  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::size_t loops() const { return workers_.size(); }

  // Serves until stop(): loop 0 on the calling thread, the others on
  // threads of their own. Then drains (stops accepting, flushes every
  // connection, closes them) and returns.
  void run();
  // Safe from any thread and from a signal handler.
  void stop();

  // Thread-safe. Returns the event's id, or why it was refused.
  hub::PublishResult publish(std::string_view topic, std::string_view data, std::string_view event = {},
                             std::string_view key = {});
  // Calls `fn` every `period` on loop 0's thread; set before run().
  void every(std::chrono::milliseconds period, std::function<void()> fn);
  // Calls `fn` on the connection's loop when a WebSocket opens; set before
  // run(). The ConnectionRef may be kept and used from any thread.
  void on_open(OpenHandler fn) { open_handler_ = std::move(fn); }

  [[nodiscard]] ServerStats stats() const;
  [[nodiscard]] buf::PoolStats pool_stats() const { return pool_.stats(); }

 private:
  friend void add_ws_route(Server& server, session::WsRoute route);

  Config config_;
  buf::Pool pool_;
  hub::TopicBook book_;
  OpenHandler open_handler_;
  std::vector<session::WsRoute> ws_routes_;
  std::atomic<std::int64_t> open_connections_{0};
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<int> listen_fds_;
  std::uint16_t port_ = 0;
};

// The loops a config asks for: `threads`, or one per core when it is 0.
[[nodiscard]] unsigned loop_count(const Config& config);

}  // namespace sluice::server
