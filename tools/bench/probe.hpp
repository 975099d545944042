// Owns: the handshake probe of pool-pressure: a fresh connection
// that sends one request and times the reply head. A server whose control
// path shares a drained buffer pool with data answers late or never.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/socket.hpp"

namespace sluice::bench {

struct ProbeResult {
  bool ok = false;       // a head arrived, with a 2xx status
  int status = 0;
  std::uint64_t ns = 0;  // connect to complete reply head
};

// Connects, sends `request`, and reads until the reply head is whole or
// `timeout_ns` passes.
[[nodiscard]] ProbeResult probe(const io::Endpoint& server, std::string_view request, std::uint64_t timeout_ns);

}  // namespace sluice::bench
