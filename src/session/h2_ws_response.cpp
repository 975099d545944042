#include "session/h2_ws_response.hpp"

namespace sluice::session {

// A 503 is a plain refusal: nothing was negotiated, and its body is the
// reason.
std::size_t H2WsResponse::fields(int status, std::span<transport::H2Header, kMaxFields> out) const {
  std::size_t n = 0;
  out[n++] = {"server", "sluice"};
  if (status != 200) {
    out[n++] = {"content-type", "text/plain"};
    out[n++] = {"retry-after", "1"};
    return n;
  }
  if (!subprotocol_.empty()) out[n++] = {"sec-websocket-protocol", subprotocol_};
  if (!extensions_.empty()) out[n++] = {"sec-websocket-extensions", extensions_};
  return n;
}

}  // namespace sluice::session
