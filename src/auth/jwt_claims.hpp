// Owns: JwtRules, what a token's claims must satisfy, and check_claims(),
// which reads a verified payload into an Identity.
//
// Time claims are NumericDates (seconds, fractions allowed) compared with
// the caller's `now`, each with auth.clock_skew_ms of slack for clocks that
// disagree: exp must be after now - skew, nbf before now + skew, iat not
// after now + skew. An `aud` is honoured as RFC 7519 §4.1.3 says: a token
// that names an audience is refused unless auth.audience is set and among
// them, so a token minted for another service is not accepted here.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "auth/grants.hpp"
#include "auth/token_error.hpp"

namespace sluice::auth {

struct JwtRules {
  std::size_t max_token_bytes = 8192;            // auth.max_token_bytes
  std::size_t max_claims = 64;                   // auth.max_claims: members of the payload object
  std::size_t max_patterns = 64;                 // auth.max_patterns: entries of one grants list
  std::chrono::milliseconds clock_skew{30'000};  // auth.clock_skew_ms
  bool require_exp = true;                       // auth.require_exp: a token must expire
  std::string audience;                          // auth.audience: when set, `aud` must hold it
  std::string issuer;                            // auth.issuer: when set, `iss` must equal it
  std::string claim = "sluice";                  // auth.claim: the grants object's name
  std::size_t max_topic_name = 128;              // topics.max_name: longest name in a pattern
};

// Whether `name` is one of JWT's registered claim names (exp, nbf, iat,
// sub, aud, iss, jti): the grants may not be kept under one, or a token's
// expiry, subject or audience would be its grants.
[[nodiscard]] constexpr bool is_registered_claim(std::string_view name) {
  for (const std::string_view registered : {"exp", "nbf", "iat", "sub", "aud", "iss", "jti"}) {
    if (name == registered) return true;
  }
  return false;
}

// Reads `payload` (the decoded JSON of a token whose signature has been
// verified) into `out`. Returns the first rule it breaks, or ok.
[[nodiscard]] TokenCheck check_claims(std::string_view payload, const JwtRules& rules,
                                      std::chrono::system_clock::time_point now, Identity& out);

// The time claims of `identity`, read by check_claims earlier, judged again
// at `now` with the same comparisons and reasons: what check_claims would
// answer now about them. Allocates only to word a refusal.
[[nodiscard]] TokenCheck check_token_times(const Identity& identity, const JwtRules& rules,
                                           std::chrono::system_clock::time_point now);

}  // namespace sluice::auth
