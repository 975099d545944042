// Owns: the frames a WebSocket client writes: every one whole and masked
// with a fresh key from the OpenSSL CSPRNG, appended to the connection's
// outgoing buffer.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "proto/ws_close.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::client::detail {

// Appends one unfragmented frame. False, appending nothing, when the
// CSPRNG has no entropy or the encoder refuses the frame (a control frame
// over 125 bytes).
[[nodiscard]] bool append_client_frame(std::string& out, proto::ws::Opcode op, std::span<const char> payload);

// Appends a close frame with `code` and no reason; for a code that may not
// be sent (1005, 1006, ...) the frame carries none.
[[nodiscard]] bool append_client_close(std::string& out, proto::ws::CloseCode code);

}  // namespace sluice::client::detail
