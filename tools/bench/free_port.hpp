// Owns: finding a loopback port for a process the bench starts itself
// (iperf3's server, redis-server) that takes its port on the command line.
#pragma once

#include <cstdint>

namespace sluice::bench {

// A port the kernel had free a moment ago on 127.0.0.1; 0 if none. Another
// process may take it first: a caller starting a server on it tries again.
[[nodiscard]] std::uint16_t free_port();

}  // namespace sluice::bench
