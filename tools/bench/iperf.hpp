// Owns: the raw-TCP reference of the bulk scenario: iperf3 (the Debian
// package) run on loopback in the same run, server and client, and its
// received bytes/s read from its JSON report.
#pragma once

#include <string>

namespace sluice::bench {

struct IperfResult {
  double bytes_per_s = 0;
  std::string error;  // empty on success
};

// Runs `iperf3 -s -1` and `iperf3 -c 127.0.0.1 -t seconds -J` on a free port.
[[nodiscard]] IperfResult run_iperf3(double seconds);

}  // namespace sluice::bench
