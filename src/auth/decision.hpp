// Owns: Decision, the answer to "may this client do this?", and how each
// answer is told: the HTTP status, the WWW-Authenticate challenge, the
// Retry-After seconds, and the WebSocket close code for a stream that is
// refused after it opened (a /ws subscribe, an expired token).
//
// A reason is one line meant for the client and the log. It is built from
// sluice's own words and the names of config keys and claims, never from a
// token, a header value or a body, so it is safe to log and to send.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::auth {

enum class Verdict : std::uint8_t {
  allow,
  unauthenticated,  // 401: no token where one is needed, or a token refused
  forbidden,        // 403: a valid identity without this topic
  too_many,         // 429: over a rate limit
  unavailable,      // 503: the authorization callback did not answer
};

struct Decision {
  Verdict verdict = Verdict::allow;
  std::string reason;               // empty for allow
  std::uint32_t retry_after_s = 0;  // too_many and unavailable: at least 1
  // unauthenticated only: a token was presented and refused (the challenge
  // then says error="invalid_token"), rather than none presented.
  bool bad_token = false;

  [[nodiscard]] bool allowed() const { return verdict == Verdict::allow; }

  [[nodiscard]] static Decision allow() { return {}; }
  [[nodiscard]] static Decision missing_token(std::string reason);
  [[nodiscard]] static Decision invalid_token(std::string reason);
  [[nodiscard]] static Decision forbid(std::string reason);
  // `retry_after_s` is raised to 1: "Retry-After: 0" would invite a retry loop.
  [[nodiscard]] static Decision over_limit(std::string reason, std::uint32_t retry_after_s);
  [[nodiscard]] static Decision callback_failed(std::string reason, std::uint32_t retry_after_s);
};

// 200, 401, 403, 429, 503.
[[nodiscard]] int http_status(Verdict verdict);

// The WebSocket close code for a refusal: 4401, 4403, 4429 (the HTTP status
// in the 4000-4999 range applications may use, so a client can tell them
// apart) and 1013 "try again later" for unavailable. 1000 for allow.
[[nodiscard]] std::uint16_t ws_close_code(Verdict verdict);

// The WWW-Authenticate value for a 401 (RFC 6750 §3): `Bearer
// realm="REALM"` when no token was presented, plus error="invalid_token"
// and error_description="REASON" for one that was refused. Characters a
// quoted string may not hold are replaced by '?'.
[[nodiscard]] std::string www_authenticate(const Decision& decision, std::string_view realm);

[[nodiscard]] std::string_view verdict_name(Verdict verdict);

}  // namespace sluice::auth
