// Owns: the authorization callback's question as bytes on the wire, and
// how its answer's status becomes a Decision. The contract:
//
//   POST <path of auth.callback_url> HTTP/1.1
//   Host: <host:port>
//   Content-Type: application/json
//   Connection: close
//   Cookie: <the client's cookies>                  (when it sent any)
//   <each header named in auth.callback_headers>   (when the client sent it)
//
//   {"action":"subscribe","topic":"news","remote_addr":"203.0.113.7"}
//
//   2xx -> allowed              401 -> 401 for the client
//   403 -> 403 for the client   429 -> 429, its Retry-After passed on
//   anything else, a time-out, a refused connection or a reply that is
//   not HTTP -> 503 with Retry-After: 1 (the callback failing never opens
//   the door).
//
// Only the status line and headers are read; a body is ignored. The
// request's bytes are also what the answer is cached under: the same
// question, byte for byte, gets the same answer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "auth/callback_target.hpp"
#include "auth/decision.hpp"
#include "auth/grants.hpp"
#include "proto/http1.hpp"

namespace sluice::auth {

struct CallbackQuestion {
  Action action = Action::subscribe;
  std::string_view topic;
  std::span<const proto::http1::Header> headers;  // the client's request headers
  std::string_view remote_addr;                   // the client's address as text
};

// The whole request. `forwarded` names the headers copied from the client
// (auth.callback_headers); Cookie headers are always copied, joined into
// one.
[[nodiscard]] std::string callback_request(const CallbackTarget& target, const CallbackQuestion& question,
                                           std::span<const std::string> forwarded);

// The Decision a callback's status means (see the banner). `retry_after` is
// the value of its Retry-After header, if any.
[[nodiscard]] Decision decision_for_status(int status, std::string_view retry_after);

// True for answers worth caching: the callback's yes, 401 and 403. A 429 or
// a failure is asked again next time.
[[nodiscard]] bool cacheable(const Decision& decision);

// Header names auth.callback_headers may not list: those that frame or
// route the request sluice sends. Returns one line naming the key, or an
// empty string when the list is acceptable.
[[nodiscard]] std::string check_forwarded_headers(std::span<const std::string> forwarded);

}  // namespace sluice::auth
