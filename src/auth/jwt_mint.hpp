// Owns: minting a signed token whose claims sluice reads: sub, iat, exp,
// aud, iss and the grants object. For `sluice token`, documentation and
// tests; sluiced itself never mints.
//
// HS256 with a secret; with a private key, the algorithm its type pins (as
// for verifying): RS256 for RSA, ES256/384/512 by curve, EdDSA for Ed25519
// and Ed448. libjwt signs all but EdDSA, which OpenSSL's EVP signs.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/evp_key.hpp"
#include "auth/jwt_alg.hpp"

namespace sluice::auth {

struct TokenClaims {
  std::string subject;                 // sub, omitted when empty
  std::vector<std::string> subscribe;  // patterns, checked before minting
  std::vector<std::string> publish;
  std::string claim = "sluice";                     // the grants object's name (auth.claim)
  std::string audience;                             // aud, omitted when empty
  std::string issuer;                               // iss, omitted when empty
  std::chrono::system_clock::time_point issued_at;  // iat
  std::chrono::seconds ttl{3600};                   // exp = iat + ttl
};

struct SigningKey {
  JwtAlg alg = JwtAlg::hs256;
  std::string secret;  // HS256
  EvpKey private_key;  // the others
  std::string kid;     // put in the header when not empty
};

// Each returns one line saying what is wrong, or nullopt.
[[nodiscard]] std::optional<std::string> signing_key_from_secret(std::string_view secret, SigningKey& out);
[[nodiscard]] std::optional<std::string> signing_key_from_pem(std::string_view pem, SigningKey& out);

// The payload as JSON. Returns why the claims cannot be minted (a pattern
// sluice would refuse), or nullopt.
[[nodiscard]] std::optional<std::string> claims_json(const TokenClaims& claims, std::string& out);

// The compact token. Returns why it cannot be made, or nullopt.
[[nodiscard]] std::optional<std::string> mint_token(const TokenClaims& claims, const SigningKey& key,
                                                    std::string& token);

}  // namespace sluice::auth
