// Owns: the check a token passes before it goes into a request's
// Authorization header, for every request the client library makes (an
// SSE stream over HTTP/1.1 or HTTP/2, a WebSocket handshake, a publish).
// A header value ends at CR or LF: a token carrying one would add headers
// of its own choosing to the request. A token with any control byte is
// therefore refused, nothing is sent, and the error never quotes it.
#pragma once

#include <string_view>

#include "sluice/client/status.hpp"

namespace sluice::client::detail {

[[nodiscard]] bool fits_a_header(std::string_view token);

// The error for a token that does not fit: bad_token, fatal.
[[nodiscard]] ClientError unfit_token();

}  // namespace sluice::client::detail
