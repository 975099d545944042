// Owns: HeldResponse, the response of a stream that the stream itself sends
// once it may. Over HTTP/2 a stream's response is its HEADERS, which would
// otherwise go the moment the stream opens; with a broker, a subscriber
// with no id is owed what is published after its answer, so an SSE stream
// or a WebSocket on /ws/{topic} holds its answer until the node's reader
// has placed its topics: 200, or instead 503 (retry later) when they were
// not placed within broker.placement_timeout_ms. Over HTTP/1.1 the answer
// is the stream's first bytes (the SSE head, the 101), which the stream
// holds in its own queue, so it has none.
#pragma once

namespace sluice::session {

class HeldResponse {
 public:
  // Sends the response with `status` (200, or 503 with Retry-After); what
  // follows it is the stream's to queue. False: the stream could not be
  // answered.
  [[nodiscard]] virtual bool respond(int status) = 0;

 protected:
  ~HeldResponse() = default;
};

}  // namespace sluice::session
