// Owns: the access log, one line per request when log.access is on:
//
//   level=info ts=... msg=access method=GET target="/sse/news?token=[redacted]" status=200
//     transport=sse peer=127.0.0.1:51522 conn=7 user_agent=curl/7.88.1 body_bytes=0 duration_us=41
//
// conn is the server's id of the connection (ConnectionRef::id), the name
// the admin API closes it by. Over HTTP/2, conn is the HTTP/2 connection
// and stream= names the stream.
//
// The record carries the body's length, never the body; the target goes
// through redact_target(), and no header but User-Agent is written.
#pragma once

#include <cstdint>
#include <string_view>

#include "log/logger.hpp"

namespace sluice::log {

// The status of a line whose client went away before it was answered (an
// HTTP/1.1 connection closed, an HTTP/2 stream reset, while the answer was
// held): no status was sent. 499 is no status a server sends, so the line
// cannot be read as an answer.
inline constexpr int kClientGoneStatus = 499;

struct AccessRecord {
  std::string_view method;
  std::string_view target;  // as received: redacted on the way out
  int status = 0;           // 101 for a WebSocket, 200 for a stream that opened; or kClientGoneStatus
  std::string_view transport;  // http, sse, ws
  std::string_view peer;       // address:port
  std::uint64_t connection = 0;  // the connection's id
  std::int32_t stream = 0;       // the HTTP/2 stream's id; 0 (not written) over HTTP/1.1
  std::string_view user_agent;
  std::uint64_t body_bytes = 0;   // the request body's length
  std::uint64_t duration_us = 0;  // from the request's first byte to its reply
};

// Writes the record's line when the logger has log.access on; allocates
// nothing.
void log_access(Logger& logger, const AccessRecord& record);

}  // namespace sluice::log
