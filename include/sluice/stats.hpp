// Owns: what a server counts (Counters, ServerStats) and reports of its
// buffer pool (PoolStats) and of the memory connections hold outside it
// (MemoryStats): Server::stats(), pool_stats() and memory_stats().
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::server {

// What the server counts. Each loop keeps its own, with atomic counts any
// thread may read while it runs (Counters<std::atomic<std::uint64_t>>);
// stats() adds them up into plain numbers (ServerStats).
template <typename Count>
struct Counters {
  Count accepted{};
  Count refused_full{};      // accepted past max_connections, sent 503
  Count streams{};           // SSE streams and WebSockets open
  Count slow_disconnects{};  // closed because the send budget was spent
  Count shed{};              // cut off while queued data held the pool, their reader behind (pool.shed_after_ms)
  Count events_dropped{};    // dropped or conflated by a policy, and reported
  Count protocol_errors{};   // WebSockets failed with 1002/1007/1009
  Count sends_to_closed{};   // ConnectionRef frames whose connection had gone
  Count publishes_held{};    // WebSocket messages held until the hub had room
  Count denied{};            // requests, subscriptions and publishes the authorizer refused
  Count latest_unbounded{};  // latest streams whose reader's backlog the kernel could not tell: no window
  Count latest_loose{};      // latest streams whose reader's window moved in steps too large to show their frames
  Count latest_padding_bytes{};  // padding queued to latest readers whose window's edge stood still
  Count memory_closes{};     // closed because their memory account could not hold their TLS record buffers

  // Calls fn(name, s.counter...) for every counter, in the order above, of
  // every struct given, in step: a loop's atomic counts and a snapshot can
  // be walked together, and a report can name each one.
  template <typename Fn, typename... Self>
  static void each(Fn&& fn, Self&... self) {
    fn("accepted", self.accepted...);
    fn("refused_full", self.refused_full...);
    fn("streams", self.streams...);
    fn("slow_disconnects", self.slow_disconnects...);
    fn("shed", self.shed...);
    fn("events_dropped", self.events_dropped...);
    fn("protocol_errors", self.protocol_errors...);
    fn("sends_to_closed", self.sends_to_closed...);
    fn("publishes_held", self.publishes_held...);
    fn("denied", self.denied...);
    fn("latest_unbounded", self.latest_unbounded...);
    fn("latest_loose", self.latest_loose...);
    fn("latest_padding_bytes", self.latest_padding_bytes...);
    fn("memory_closes", self.memory_closes...);
  }
};
using ServerStats = Counters<std::uint64_t>;

// The buffer pool's state (all payload memory).
struct PoolStats {
  std::size_t block_count = 0;
  std::size_t block_size = 0;
  std::size_t reserve = 0;
  std::size_t free_blocks = 0;
  std::size_t min_free_blocks = 0;     // low-water mark since the pool was made
  std::uint64_t data_refusals = 0;     // data blocks refused (the reserve was reached)
  std::uint64_t control_refusals = 0;  // control blocks refused (the pool was empty)
};

// What connections hold outside the pool: their buffers' growth past the
// resting sizes (input, WebSocket messages and chunked bodies being
// joined), charged to each connection (limits.connection_bytes) and to the
// server (limits.server_bytes).
struct MemoryStats {
  std::size_t charged = 0;  // bytes charged now, all connections together
  std::size_t limit = 0;    // limits.server_bytes
  // The part of `limit` only TLS records read while the rest is full may
  // take (limits.tls_record_reserve_bytes; 0 without TLS).
  std::size_t tls_record_reserve = 0;
  std::uint64_t refused_by_connection = 0;  // growths refused by limits.connection_bytes
  std::uint64_t refused_by_server = 0;      // growths refused by limits.server_bytes
};

}  // namespace sluice::server
