// Owns: HeldAccessLine, the access log's line of an HTTP/1.1 request
// whose answer is held: an SSE stream whose head waits for its topics'
// place, a `/ws/{topic}` upgrade whose 101 waits for it, a publish
// waiting for Redis's answer (with a broker), or a request waiting for an
// authorization decision. The request's fields are kept when it is
// routed, and the line is written once it is answered, with the status
// that went (an SSE head's 200, a 101, a refusal's 503, Redis's answer),
// or 499 when the connection closed before
// (log::kClientGoneStatus). Over HTTP/2 the connection keeps the same
// fields on the stream's exchange.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "io/loop.hpp"
#include "log/access.hpp"

namespace sluice::session {

class HeldAccessLine {
 public:
  // Keeps `record`'s fields (its strings copied, into capacity kept from
  // one request to the next) until write(). A 200 or a 101 is written
  // with `record.transport`, any other status as `http`.
  void hold(log::Logger& logger, const log::AccessRecord& record, io::Loop::Clock::time_point started);

  // Writes the held line with `status`, its duration from the request's
  // first byte to `now`; nothing when no line is held. Once: the line is
  // no longer held after.
  void write(int status, io::Loop::Clock::time_point now);

  // Lets the held line go unwritten: the request is logged afresh (an
  // authorization decision came, and the request is routed again).
  void drop() { logger_ = nullptr; }

 private:
  struct Fields {
    std::string method, target, transport, peer, user_agent;
    std::uint64_t connection = 0;
    std::uint64_t body_bytes = 0;
    io::Loop::Clock::time_point started{};
  };

  log::Logger* logger_ = nullptr;  // null: no line held
  // Made at the first hold and kept for the next: every SSE and WebSocket
  // stream has a line of its own, and most never hold one, so an idle
  // stream carries a pointer, not the fields.
  std::unique_ptr<Fields> fields_;
};

}  // namespace sluice::session
