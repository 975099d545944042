#include "session/response.hpp"

#include <charconv>
#include <cstdio>

#include "proto/http1.hpp"

namespace sluice::session {

namespace {

void append_number(buf::Sink& sink, std::size_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  sink.append(digits, static_cast<std::size_t>(end - digits));
}

}  // namespace

// Appended piece by piece rather than formatted: a publisher's every POST
// is answered through here, and printf's format walk cost more than the
// rest of the reply.
void write_response(buf::Sink& sink, const Response& response) {
  sink.append("HTTP/1.1 ");
  append_number(sink, static_cast<std::size_t>(response.status));
  sink.append(" ");
  sink.append(proto::http1::status_reason(response.status));
  sink.append("\r\nServer: sluice");
  // A 204 has no content to describe, and may not say its length (a client
  // could take it for a body of zero bytes where none may be); a body given
  // with one is not written, or it would be read as the next reply.
  const bool no_content = response.status == 204;
  if (!no_content) {
    sink.append("\r\nContent-Type: ");
    sink.append(response.content_type);
    sink.append("\r\nContent-Length: ");
    append_number(sink, response.body.size());
  }
  sink.append(response.keep_alive ? "\r\nConnection: keep-alive\r\n" : "\r\nConnection: close\r\n");
  sink.append(response.extra_headers);
  sink.append("\r\n");
  if (!response.head_only && !no_content) sink.append(response.body);
}

buf::FrameRef make_response(buf::Pool& pool, const Response& response) {
  buf::FrameBuilder builder(pool, buf::Lane::control);
  write_response(builder, response);
  return builder.finish();
}

buf::FrameRef make_sse_preamble(buf::Pool& pool, long long retry_ms) {
  char retry[64];
  const int n = std::snprintf(retry, sizeof retry, "retry: %lld\n\n", retry_ms);
  return buf::make_frame(pool, buf::Lane::control, std::string_view(retry, static_cast<std::size_t>(n)));
}

buf::FrameRef make_sse_head(buf::Pool& pool, long long retry_ms, std::string_view allow_origin) {
  char retry[64];
  const int n = std::snprintf(retry, sizeof retry, "retry: %lld\n\n", retry_ms);
  buf::FrameBuilder builder(pool, buf::Lane::control);
  builder.append(
      "HTTP/1.1 200 OK\r\nServer: sluice\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
      "X-Accel-Buffering: no\r\nConnection: keep-alive\r\n");
  if (!allow_origin.empty()) {
    builder.append("Access-Control-Allow-Origin: ");
    builder.append(allow_origin);
    builder.append(allow_origin == "*" ? "\r\n" : "\r\nVary: Origin\r\nAccess-Control-Allow-Credentials: true\r\n");
  }
  builder.append("\r\n");
  builder.append(retry, static_cast<std::size_t>(n));
  return builder.finish();
}

}  // namespace sluice::session
