// Owns: JwtAlg, the signature algorithms sluice verifies (RFC 7518 §3 and
// RFC 8037's EdDSA), their names as a token's header spells them, and the
// kind of key each needs. "none" is not among them: an unsigned token is
// never accepted, whatever the configuration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice::auth {

enum class JwtAlg : std::uint8_t { hs256, hs384, hs512, rs256, rs384, rs512, es256, es384, es512, eddsa };

enum class KeyKind : std::uint8_t {
  secret,  // HMAC: a shared secret
  rsa,
  ec,   // an elliptic curve named by the algorithm (P-256 for ES256)
  okp,  // Ed25519 or Ed448
};

// Exact, case-sensitive names ("HS256", "EdDSA"); nullopt for anything
// else, "none" included.
[[nodiscard]] std::optional<JwtAlg> parse_jwt_alg(std::string_view name);
[[nodiscard]] std::string_view jwt_alg_name(JwtAlg alg);
[[nodiscard]] KeyKind key_kind(JwtAlg alg);

// HMAC algorithms: the shortest secret accepted, the hash's output size
// (RFC 7518 §3.2: a shorter key is weaker than the hash). 0 for others.
[[nodiscard]] std::size_t min_secret_bytes(JwtAlg alg);

// The OpenSSL group name ES256/384/512 requires ("prime256v1", ...); empty
// for other algorithms.
[[nodiscard]] std::string_view ec_group_for(JwtAlg alg);

}  // namespace sluice::auth
