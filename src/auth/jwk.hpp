// Owns: reading one JSON Web Key (RFC 7517, RFC 7518 §6, RFC 8037) into a
// JwtKey. Every key must name its `alg`, and `kty` (and `crv`) must be the
// kind that algorithm needs; a key that carries private members, or says it
// is not for verifying signatures (`use`, `key_ops`), is refused, so a JWKS
// file that was meant for something else fails at start instead of later.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "auth/jwt_key.hpp"

namespace sluice::auth {

// Fills `out` from `jwk`. Returns why the key is refused, or nullopt.
[[nodiscard]] std::optional<std::string> read_jwk(const nlohmann::json& jwk, JwtKey& out);

}  // namespace sluice::auth
