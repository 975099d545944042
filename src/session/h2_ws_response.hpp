// Owns: H2WsResponse, the HEADERS of a WebSocket over HTTP/2 (the answer
// to its extended CONNECT): 200 with what the handshake negotiated (the
// subprotocol, permessage-deflate's parameters), or 503 with Retry-After
// for a /ws/{topic} stream whose topic was not placed in time (with a
// broker its 200 waits for the place, as the 101 of HTTP/1.1 does:
// WsTopicStream).
#pragma once

#include <string>
#include <utility>

#include "session/h2_held_response.hpp"

namespace sluice::session {

class H2WsResponse final : public H2HeldResponse {
 public:
  // `subprotocol`, `extensions`: the fields' values, empty for none.
  H2WsResponse(transport::H2Session& h2, H2ResponseListener& listener, std::int32_t stream, std::string subprotocol,
               std::string extensions)
      : H2HeldResponse(h2, listener, stream),
        subprotocol_(std::move(subprotocol)),
        extensions_(std::move(extensions)) {}

 private:
  [[nodiscard]] std::size_t fields(int status, std::span<transport::H2Header, kMaxFields> out) const override;

  const std::string subprotocol_;
  const std::string extensions_;
};

}  // namespace sluice::session
