// Owns: HeldAccessLine, the access log's line of an HTTP/1.1 request
// whose answer its stream holds (an SSE stream whose head waits for its
// topics' place, with a broker). The request's fields are kept when it is
// routed, and the line is written once the stream answers, with the status
// that went: 200 with the head, 503 with a refusal, or 499 when the
// connection closed before either (log::kClientGoneStatus). Over HTTP/2
// the connection keeps the same fields on the stream's exchange.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/loop.hpp"
#include "log/access.hpp"

namespace sluice::session {

class HeldAccessLine {
 public:
  // `record`'s strings are copied; its status and duration are the answer's.
  HeldAccessLine(log::Logger& logger, const log::AccessRecord& record, io::Loop::Clock::time_point started);

  // Writes the line with `status` (transport sse for a 200, http for any
  // other), its duration from the request's first byte to `now`. Once: a
  // later call writes nothing.
  void write(int status, io::Loop::Clock::time_point now);

 private:
  log::Logger& logger_;
  std::string method_, target_, peer_, user_agent_;
  std::uint64_t connection_;
  std::uint64_t body_bytes_;
  io::Loop::Clock::time_point started_;
  bool written_ = false;
};

}  // namespace sluice::session
