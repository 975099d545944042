#include "session/h2_sse_response.hpp"

namespace sluice::session {

// The 503 carries Retry-After, as over HTTP/1.1.
std::size_t H2SseResponse::fields(int status, std::span<transport::H2Header, kMaxFields> out) const {
  std::size_t n = 0;
  out[n++] = {"server", "sluice"};
  if (status == 200) {
    out[n++] = {"content-type", "text/event-stream"};
    out[n++] = {"cache-control", "no-cache"};
  } else {
    out[n++] = {"content-type", "text/plain"};
    out[n++] = {"retry-after", "1"};
  }
  if (!allow_origin_.empty()) {
    out[n++] = {"access-control-allow-origin", allow_origin_};
    if (allow_origin_ != "*") {
      out[n++] = {"vary", "Origin"};
      if (status == 200) out[n++] = {"access-control-allow-credentials", "true"};
    }
  }
  return n;
}

}  // namespace sluice::session
