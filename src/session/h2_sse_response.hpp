// Owns: H2SseResponse, the HEADERS of an SSE stream over HTTP/2, held until
// the stream says its head may go. With a broker, a subscriber with no id
// is owed what is published after its answer, and over HTTP/2 the answer is
// the response HEADERS: they go once the stream's topics are placed (200),
// or instead say that they were not placed in time (503), as the head of
// an HTTP/1.1 stream does.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "session/sse_stream.hpp"
#include "transport/h2_session.hpp"

namespace sluice::session {

class H2SseResponse final : public SseResponse {
 public:
  // `allow_origin`: the request's CORS answer, empty for none.
  H2SseResponse(transport::H2Session& h2, std::int32_t stream, std::string allow_origin)
      : h2_(h2), stream_(stream), allow_origin_(std::move(allow_origin)) {}
  [[nodiscard]] bool respond(int status) override;

 private:
  transport::H2Session& h2_;
  const std::int32_t stream_;
  const std::string allow_origin_;
};

}  // namespace sluice::session
