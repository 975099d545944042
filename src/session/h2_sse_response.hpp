// Owns: H2SseResponse, the HEADERS of an SSE stream over HTTP/2, held until
// the stream says its head may go. With a broker, a subscriber with no id
// is owed what is published after its answer, and over HTTP/2 the answer is
// the response HEADERS: they go once the stream's topics are placed (200),
// or instead say that they were not placed in time (503), as the head of
// an HTTP/1.1 stream does.
#pragma once

#include <string>
#include <utility>

#include "session/h2_held_response.hpp"

namespace sluice::session {

class H2SseResponse final : public H2HeldResponse {
 public:
  // `allow_origin`: the request's CORS answer, empty for none.
  H2SseResponse(transport::H2Session& h2, H2ResponseListener& listener, std::int32_t stream, std::string allow_origin)
      : H2HeldResponse(h2, listener, stream), allow_origin_(std::move(allow_origin)) {}

 private:
  [[nodiscard]] std::size_t fields(int status, std::span<transport::H2Header, kMaxFields> out) const override;

  const std::string allow_origin_;
};

}  // namespace sluice::session
