// Owns: Server::Impl, what a Server holds behind its public header: the
// config, the pool, the topic book, the application's hooks, the extra
// WebSocket endpoints, and one Worker per loop.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "buf/pool.hpp"
#include "server/address_limit.hpp"
#include "hub/topic_book.hpp"
#include "server/worker.hpp"
#include "session/app_hooks.hpp"
#include "session/services.hpp"
#include "sluice/server.hpp"

namespace sluice::server {

struct Server::Impl {
  explicit Impl(const Config& config);

  Config config;
  buf::Pool pool;
  hub::TopicBook book;
  session::AppHooks hooks;
  std::vector<session::WsRoute> ws_routes;
  std::atomic<std::int64_t> open_connections{0};
  AddressLimit address_limit{config.per_ip_connections};
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<int> listen_fds;
  std::uint16_t port = 0;
};

}  // namespace sluice::server
