// Owns: checking a token's signature with the one key chosen for it, through
// OpenSSL's EVP interface: an HMAC for HS*, EVP_DigestVerify for RS*, ES*
// and EdDSA.
//
// The algorithm is the key's, never the token's. The verifier has already
// refused a header whose alg is not the key's, and the check here uses the
// key's algorithm and the key's own material only: an HS256 token cannot be
// checked "with" an RSA public key (the public key, which anyone may read,
// never serves as a secret), and a key without material verifies nothing.
// Only the signing input and the signature are read: what the header and
// payload say beyond the alg (a typ of at+jwt, a number past 64 bits) is
// for the claims' reader to judge with its own reason, never a failed
// signature.
#pragma once

#include <cstdint>
#include <string_view>

#include "auth/jwt_key.hpp"

namespace sluice::auth {

enum class SignatureCheck : std::uint8_t { valid, invalid, out_of_memory };

// `signing_input` is the token's first two parts with the dot between;
// `signature` its third part, base64url.
[[nodiscard]] SignatureCheck check_signature(const JwtKey& key, std::string_view signing_input,
                                             std::string_view signature);

}  // namespace sluice::auth
