#include "session/h2_held_response.hpp"

#include <array>

namespace sluice::session {

// The body follows on the stream's queue either way: the stream's bytes
// (200), or the reason and the end (503).
bool H2HeldResponse::respond(int status) {
  std::array<transport::H2Header, kMaxFields> headers;
  const std::size_t n = fields(status, headers);
  if (!h2_.respond(stream_, status, std::span(headers.data(), n), true)) return false;
  // A refusal: a client still sending on the stream (a WebSocket's) is
  // told to stop once it is out.
  if (status != 200) h2_.stop_sender_after_answer(stream_);
  listener_.stream_answered(stream_, status);
  return true;
}

}  // namespace sluice::session
