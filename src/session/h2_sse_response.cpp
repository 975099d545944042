#include "session/h2_sse_response.hpp"

#include <array>
#include <span>

namespace sluice::session {

// The body follows on the stream's queue either way: the events (200), or
// the reason and the end (503, with Retry-After as over HTTP/1.1).
bool H2SseResponse::respond(int status) {
  std::array<transport::H2Header, 6> headers{{{"server", "sluice"}}};
  std::size_t n = 1;
  if (status == 200) {
    headers[n++] = {"content-type", "text/event-stream"};
    headers[n++] = {"cache-control", "no-cache"};
  } else {
    headers[n++] = {"content-type", "text/plain"};
    headers[n++] = {"retry-after", "1"};
  }
  if (!allow_origin_.empty()) {
    headers[n++] = {"access-control-allow-origin", allow_origin_};
    if (allow_origin_ != "*") {
      headers[n++] = {"vary", "Origin"};
      if (status == 200) headers[n++] = {"access-control-allow-credentials", "true"};
    }
  }
  return h2_.respond(stream_, status, std::span(headers.data(), n), true);
}

}  // namespace sluice::session
