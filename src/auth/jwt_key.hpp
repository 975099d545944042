// Owns: JwtKey, one key tokens are checked against, pinned to the single
// algorithm it may verify. Pinning is what stops algorithm confusion: a
// token whose header says HS256 is never checked against an RSA key (whose
// public PEM, used as an HMAC secret, anyone could sign with).
#pragma once

#include <cstddef>
#include <string>

#include "auth/evp_key.hpp"
#include "auth/jwt_alg.hpp"

namespace sluice::auth {

// A kid is echoed in no message; a longer one, in a key file or a token's
// header, is refused outright.
inline constexpr std::size_t kMaxKidBytes = 256;

struct JwtKey {
  std::string kid;  // empty when the key has none
  JwtAlg alg = JwtAlg::hs256;
  std::string secret;  // HS*: the shared secret, never empty
  EvpKey public_key;   // RS*, ES*, EdDSA
};

}  // namespace sluice::auth
