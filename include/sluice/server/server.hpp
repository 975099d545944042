// Owns: Server, the library's front door: it binds the listening socket,
// runs the worker that serves it, and stops gracefully.
//
//   sluice::server::Config config;            // defaults, or load_config_file()
//   sluice::server::Server server(config);
//   if (server.bind() != 0) ...;              // -errno
//   server.run();                             // until stop(), from any thread
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "sluice/hub/hub.hpp"
#include "sluice/server/config.hpp"
#include "sluice/server/worker.hpp"

namespace sluice::server {

class Server {
 public:
  // `config` is copied; validate() it first (sluiced does).
  explicit Server(const Config& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens on config.listen. Returns 0 or -errno.
  [[nodiscard]] int bind();
  // The bound port (useful with port 0).
  [[nodiscard]] std::uint16_t port() const { return port_; }

  // Serves until stop(), then drains: stops accepting, flushes every
  // connection, closes them, and returns.
  void run();
  // Safe from any thread and from a signal handler.
  void stop() { worker_->stop(); }

  // Publishes from the serving thread: call it from an every() callback or
  // before run(). Returns the event's id, or why it was refused.
  hub::PublishResult publish(std::string_view topic, std::string_view data, std::string_view event = {});
  // Calls `fn` on the serving thread every `period`.
  void every(std::chrono::milliseconds period, std::function<void()> fn);

  [[nodiscard]] const WorkerStats& stats() const { return worker_->stats(); }
  [[nodiscard]] buf::PoolStats pool_stats() const { return worker_->pool().stats(); }

 private:
  Config config_;
  std::unique_ptr<Worker> worker_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace sluice::server
