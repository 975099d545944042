#include "auth/token_error.hpp"

namespace sluice::auth {

std::string_view token_error_name(TokenError error) {
  switch (error) {
    case TokenError::none: return "none";
    case TokenError::too_long: return "too_long";
    case TokenError::malformed: return "malformed";
    case TokenError::alg_none: return "alg_none";
    case TokenError::alg_unsupported: return "alg_unsupported";
    case TokenError::alg_mismatch: return "alg_mismatch";
    case TokenError::unknown_kid: return "unknown_kid";
    case TokenError::ambiguous_key: return "ambiguous_key";
    case TokenError::bad_signature: return "bad_signature";
    case TokenError::expired: return "expired";
    case TokenError::not_yet_valid: return "not_yet_valid";
    case TokenError::issued_in_future: return "issued_in_future";
    case TokenError::missing_exp: return "missing_exp";
    case TokenError::wrong_audience: return "wrong_audience";
    case TokenError::wrong_issuer: return "wrong_issuer";
    case TokenError::too_many_claims: return "too_many_claims";
    case TokenError::too_many_patterns: return "too_many_patterns";
    case TokenError::bad_claim: return "bad_claim";
    case TokenError::out_of_memory: return "out_of_memory";
  }
  return "?";
}

}  // namespace sluice::auth
