#include "session/response.hpp"

#include <cstdio>

#include "proto/http1.hpp"

namespace sluice::session {

void write_response(buf::Sink& sink, const Response& response) {
  char head[256];
  const int n = std::snprintf(head, sizeof head,
                              "HTTP/1.1 %d %s\r\nServer: sluice\r\nContent-Type: %.*s\r\nContent-Length: %zu\r\n"
                              "Connection: %s\r\n",
                              response.status, proto::http1::status_reason(response.status),
                              static_cast<int>(response.content_type.size()), response.content_type.data(),
                              response.body.size(), response.keep_alive ? "keep-alive" : "close");
  sink.append(head, static_cast<std::size_t>(n));
  sink.append(response.extra_headers);
  sink.append("\r\n");
  sink.append(response.body);
}

buf::FrameRef make_response(buf::Pool& pool, const Response& response) {
  buf::FrameBuilder builder(pool, buf::Lane::control);
  write_response(builder, response);
  return builder.finish();
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
    builder.append(allow_origin == "*" ? "\r\n" : "\r\nVary: Origin\r\n");
  }
  builder.append("\r\n");
  builder.append(retry, static_cast<std::size_t>(n));
  return builder.finish();
}

}  // namespace sluice::session
