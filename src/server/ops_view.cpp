#include "server/ops_view.hpp"

namespace sluice::server {

namespace {

// The project's version, as CMake names it (SLUICE_VERSION is defined for
// the server library).
constexpr std::string_view kVersion = SLUICE_VERSION;

}  // namespace

metrics::ServerGauges OpsView::gauges() const {
  const buf::PoolStats pool = pool_.stats();
  return {.version = kVersion,
          .topics = book_.topic_count(),
          .topics_limit = config_.hub.max_topics,
          .connections_limit = static_cast<std::uint64_t>(connections_limit_.load(std::memory_order_relaxed)),
          .pool_blocks = pool.block_count,
          .pool_block_size = pool.block_size,
          .pool_reserve = pool.reserve,
          .pool_free_blocks = pool.free_blocks,
          .pool_min_free_blocks = pool.min_free_blocks,
          .pool_data_refusals = pool.data_refusals,
          .pool_control_refusals = pool.control_refusals,
          .log_lines_dropped = logger_.dropped(),
          .memory_charged = memory_.charged(),
          .memory_limit = memory_.limit(),
          .memory_reserve = memory_.reserve(),
          .memory_refused_connection = memory_.refused_by_connection(),
          .memory_refused_server = memory_.refused_by_server()};
}

void OpsView::write_metrics(std::string& out) const { metrics::write_exposition(registry_, gauges(), out); }

}  // namespace sluice::server
