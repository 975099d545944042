// Owns: what the bench client itself costs, so that every fan-out figure
// can say whether the client, not the server, was the limit: the CPU time
// of this process (readers and publishers together) and the number of
// cores it may run on (taskset), and the verdict drawn from them.
#pragma once

#include <cstddef>

namespace sluice::bench {

// User plus system CPU seconds of this process so far.
[[nodiscard]] double self_cpu_seconds();

// The cores this process may run on (its affinity mask).
[[nodiscard]] std::size_t allowed_cores();

// A client that used more than this share of what it may use was busy
// all the time: the figure may be its limit, not the server's.
inline constexpr double kClientBusyShare = 0.9;

// Whether a client was the limit: its busiest reader thread used
// `reader_cores` (of one), or the whole process `process_cores` of the
// `cores` it may use.
[[nodiscard]] inline bool client_was_limit(double reader_cores, double process_cores, std::size_t cores) {
  return reader_cores > kClientBusyShare || process_cores > kClientBusyShare * static_cast<double>(cores);
}

}  // namespace sluice::bench
