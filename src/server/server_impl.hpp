// Owns: Server::Impl, what a Server holds behind its public header: the
// config, the pool, the topic book, the loops' metrics and what the
// operator routes read of them, the application's hooks, the extra
// WebSocket endpoints, and one Worker per loop.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "buf/pool.hpp"
#include "hub/topic_book.hpp"
#include "log/logger.hpp"
#include "log/output.hpp"
#include "metrics/registry.hpp"
#include "server/ops_view.hpp"
#include "server/system_feed.hpp"
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
  log::Output log_output{2};  // standard error, never blocking a loop
  log::Logger logger;         // log.level, log.format, log.access, log.max_line
  metrics::Registry registry;  // one cell set per loop, summed at scrape
  OpsView ops{config, registry, pool, book, logger};
  SystemFeed system_feed{config, registry, ops, book};
  session::AppHooks hooks;
  std::vector<session::WsRoute> ws_routes;
  std::atomic<std::int64_t> open_connections{0};
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<int> listen_fds;
  std::uint16_t port = 0;
};

}  // namespace sluice::server
