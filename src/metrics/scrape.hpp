// Owns: the catalogue of sluice's metrics (every family's name, type, help
// and labels) and write_exposition(), which adds up a Registry and writes
// it, with the server-wide gauges, in the Prometheus text format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/registry.hpp"

namespace sluice::metrics {

// What the server knows outside its loops, read once per scrape.
struct ServerGauges {
  std::string_view version;
  std::uint64_t topics = 0;
  std::uint64_t topics_limit = 0;       // topics.max
  std::uint64_t connections_limit = 0;  // max_connections
  std::uint64_t pool_blocks = 0;
  std::uint64_t pool_block_size = 0;
  std::uint64_t pool_reserve = 0;
  std::uint64_t pool_free_blocks = 0;
  std::uint64_t pool_min_free_blocks = 0;  // low-water mark since start
  std::uint64_t pool_data_refusals = 0;
  std::uint64_t pool_control_refusals = 0;
  std::uint64_t log_lines_dropped = 0;
  // Connections' buffers outside the pool (limits.connection_bytes, limits.server_bytes).
  std::uint64_t memory_charged = 0;
  std::uint64_t memory_limit = 0;
  std::uint64_t memory_reserve = 0;  // the part of memory_limit kept for TLS records
  std::uint64_t memory_refused_connection = 0;
  std::uint64_t memory_refused_server = 0;
};

// Appends the whole exposition to `out`. Takes no lock a loop could wait on.
void write_exposition(const Registry& registry, const ServerGauges& server, std::string& out);

}  // namespace sluice::metrics
