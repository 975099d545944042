// Owns: TokenError, every reason a token is refused, and TokenCheck, the
// error with its one-line wording. All of them answer 401 with
// error="invalid_token"; the kinds exist so tests and counters can tell the
// refusals apart.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace sluice::auth {

enum class TokenError : std::uint8_t {
  none,
  too_long,         // over auth.max_token_bytes
  malformed,        // not three base64url parts of JSON, or a header sluice cannot honour
  alg_none,         // "alg": "none", in any spelling
  alg_unsupported,  // an alg sluice does not know
  alg_mismatch,     // the header's alg is not the chosen key's (algorithm confusion)
  unknown_kid,      // a kid no configured key has
  ambiguous_key,    // no kid, and several keys are pinned to the token's alg
  bad_signature,
  expired,            // exp, with auth.clock_skew_ms
  not_yet_valid,      // nbf
  issued_in_future,   // iat
  missing_exp,        // auth.require_exp and no exp
  wrong_audience,     // aud and auth.audience disagree
  wrong_issuer,       // iss is not auth.issuer
  too_many_claims,    // over auth.max_claims
  too_many_patterns,  // a grants list over auth.max_patterns
  bad_claim,          // a registered or grants claim of the wrong type or form
  out_of_memory,
};

[[nodiscard]] std::string_view token_error_name(TokenError error);

struct TokenCheck {
  TokenError error = TokenError::none;
  std::string reason;  // one line, never the token or a claim's value

  [[nodiscard]] bool ok() const { return error == TokenError::none; }
};

[[nodiscard]] inline TokenCheck token_refused(TokenError error, std::string reason) {
  return {error, std::move(reason)};
}

}  // namespace sluice::auth
