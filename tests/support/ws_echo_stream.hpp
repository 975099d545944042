// Owns: EchoStream, a WebSocket stream that sends every message back (text
// as text, binary as binary; compressed when permessage-deflate was
// negotiated), and add_echo_endpoint(), which gives a test's server one at
// GET /ws-echo. It is for protocol tests (the conformance suite, the real
// clients' fragmentation and compression runs): sluiced itself has no echo.
#pragma once

#include <string_view>

#include "sluice/server.hpp"

namespace sluice::test {

inline constexpr std::string_view kEchoPath = "/ws-echo";

// Before server.run().
void add_echo_endpoint(server::Server& server);

}  // namespace sluice::test
