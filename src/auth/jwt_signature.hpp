// Owns: checking a token's signature with the one key chosen for it.
// HMAC, RSA and ECDSA go through libjwt; EdDSA, which libjwt 1.10 does not
// know, through OpenSSL's EVP interface directly.
//
// What libjwt 1.10 does not do, and so what this file (and the verifier
// before it) must: jwt_decode() takes the algorithm from the token's own
// header and the key as plain bytes, so an HS256 token verified "with" an
// RSA public key uses that PEM text as the HMAC secret, and anyone holding
// the public key can forge tokens; and given no key at all it skips the
// signature check and says the token is fine. So the algorithm is pinned
// before libjwt is called (the header's alg must be the key's), libjwt is
// never called without key bytes, and the algorithm libjwt reports having
// used is checked again afterwards.
#pragma once

#include <cstdint>
#include <string_view>

#include "auth/jwt_key.hpp"

namespace sluice::auth {

enum class SignatureCheck : std::uint8_t { valid, invalid, out_of_memory };

// `token` is the whole compact token; `signing_input` its first two parts
// with the dot between; `signature` the third part, base64url. The caller
// has already checked that the header's alg is key.alg.
[[nodiscard]] SignatureCheck check_signature(const JwtKey& key, std::string_view token, std::string_view signing_input,
                                             std::string_view signature);

}  // namespace sluice::auth
