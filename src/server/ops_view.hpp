// Owns: OpsView, the server's side of the operator routes: it reads the
// loops' metric cells, the pool and the topic book, and writes what
// GET /metrics and the $sys snapshots show. It only reads: a scrape sums
// every loop's cells with relaxed loads and no loop ever waits for it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "buf/memory_account.hpp"
#include "buf/pool.hpp"
#include "hub/topic_book.hpp"
#include "log/logger.hpp"
#include "metrics/registry.hpp"
#include "metrics/scrape.hpp"
#include "session/ops_pages.hpp"
#include "sluice/config.hpp"

namespace sluice::server {

class OpsView final : public session::OpsPages {
 public:
  OpsView(const Config& config, const metrics::Registry& registry, const buf::Pool& pool, const hub::TopicBook& book,
          const log::Logger& logger, const buf::MemoryCap& memory)
      : config_(config), registry_(registry), pool_(pool), book_(book), logger_(logger), memory_(memory) {}

  void write_metrics(std::string& out) const override;
  [[nodiscard]] session::AdminDesk* admin() const override { return admin_; }
  [[nodiscard]] std::int64_t broker_loops_cut_off() const override {
    return registry_.sum([](const metrics::LoopMetrics& m) { return m.broker_unusable.value(); });
  }
  [[nodiscard]] std::size_t loops() const override { return registry_.loops(); }
  // Before serving: the admin API's desk (none: no admin listener).
  void set_admin(session::AdminDesk* desk) { admin_ = desk; }
  // What the server knows outside its loops, now.
  [[nodiscard]] metrics::ServerGauges gauges() const;
  // Any thread (a reload): max_connections as the loops now apply it.
  void set_connections_limit(std::int64_t limit) { connections_limit_.store(limit, std::memory_order_relaxed); }

 private:
  const Config& config_;
  const metrics::Registry& registry_;
  const buf::Pool& pool_;
  const hub::TopicBook& book_;
  const log::Logger& logger_;
  const buf::MemoryCap& memory_;  // what connections hold outside the pool
  session::AdminDesk* admin_ = nullptr;
  std::atomic<std::int64_t> connections_limit_{config_.max_connections};
};

}  // namespace sluice::server
