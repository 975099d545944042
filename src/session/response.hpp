// Owns: the bytes of sluiced's plain HTTP responses (errors, publish
// replies, health) and of the SSE stream head. Responses are control frames:
// they may use the pool's reserve, so a server whose data lane is exhausted
// can still answer.
#pragma once

#include <string_view>

#include "buf/frame.hpp"

namespace sluice::session {

struct Response {
  int status = 200;
  std::string_view content_type = "text/plain; charset=utf-8";
  std::string_view body;
  bool keep_alive = true;
  std::string_view extra_headers;  // whole lines, each ending in CRLF
  // The answer to a HEAD: the head gives the body's length, and no body
  // follows (a client reads the next reply right after the head).
  bool head_only = false;
};

// The whole reply to a connection past max_connections, sent at once
// before it is closed: it fits any fresh socket buffer.
inline constexpr std::string_view kTooManyConnections =
    "HTTP/1.1 503 Service Unavailable\r\nServer: sluice\r\nContent-Length: 38\r\nConnection: close\r\n"
    "Retry-After: 1\r\n\r\ntoo many connections (max_connections)";
// The same past limits.per_ip_connections from one address.
inline constexpr std::string_view kTooManyFromAddress =
    "HTTP/1.1 503 Service Unavailable\r\nServer: sluice\r\nContent-Length: 66\r\nConnection: close\r\n"
    "Retry-After: 1\r\n\r\ntoo many connections from this address (limits.per_ip_connections)";

// Writes the whole response, head and body, into `sink`.
void write_response(buf::Sink& sink, const Response& response);

// Returns an empty FrameRef when even the reserve is exhausted.
[[nodiscard]] buf::FrameRef make_response(buf::Pool& pool, const Response& response);

// The head of an event stream: 200, text/event-stream, no caching, no proxy
// buffering; the body runs until the connection closes. A non-empty
// `allow_origin` is sent as Access-Control-Allow-Origin, so that a page
// from another origin may open the stream with EventSource.
[[nodiscard]] buf::FrameRef make_sse_head(buf::Pool& pool, long long retry_ms, std::string_view allow_origin);
// What an event stream over HTTP/2 sends first in its body: its `retry:`
// (the head is the response's HEADERS frame).
[[nodiscard]] buf::FrameRef make_sse_preamble(buf::Pool& pool, long long retry_ms);

}  // namespace sluice::session
