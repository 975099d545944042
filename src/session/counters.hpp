// Owns: LoopCounters, what one loop counts as it serves; any thread may
// read them while the loop runs (Server::stats adds every loop's up).
#pragma once

#include <atomic>
#include <cstdint>

namespace sluice::session {

struct LoopCounters {
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> refused_full{0};      // accepted past max_connections, sent 503
  std::atomic<std::uint64_t> streams{0};           // SSE streams and WebSockets open
  std::atomic<std::uint64_t> slow_disconnects{0};  // closed because the send budget was spent
  std::atomic<std::uint64_t> events_dropped{0};    // dropped or conflated by a policy, and reported
  std::atomic<std::uint64_t> protocol_errors{0};   // WebSockets failed with 1002/1007/1009
  std::atomic<std::uint64_t> sends_to_closed{0};   // ConnectionRef frames whose connection had gone
  std::atomic<std::uint64_t> publishes_held{0};    // WebSocket messages held until the hub had room
};

}  // namespace sluice::session
