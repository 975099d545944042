// Owns: KeyRing, the keys tokens are checked against, loaded from the places
// the configuration may name (auth.jwt_secret or auth.jwt_secret_file,
// auth.jwt_public_key_file, auth.jwks_file), and the rule that picks the one key a token is checked
// against.
//
// The rule: a token whose header names a `kid` that a key has is checked
// against that key only. Otherwise it is checked against the only key
// pinned to the token's `alg` (when the token named a kid, the only such key
// without a kid: auth.jwt_secret or auth.jwt_public_key_file). Either way
// the token's alg must be the key's pinned alg. A token is never tried
// against several keys, so a forged one costs one signature check, and no
// key is ever used with an algorithm it was not configured for.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/jwt_key.hpp"

namespace sluice::auth {

struct KeySources {
  std::string secret;           // auth.jwt_secret: HS256, at least 32 bytes
  std::string public_key_file;  // auth.jwt_public_key_file: PEM; RS256, ES256/384/512 or EdDSA by key type
  std::string jwks_file;        // auth.jwks_file: {"keys":[...]}, each key with its alg
  std::size_t max_keys = 64;    // auth.max_keys: keys in the JWKS file
  std::string secret_file;      // auth.jwt_secret_file: its first line is the secret (not with `secret`)
};

// Files larger than this are refused (a JWKS of 64 RSA-4096 keys is ~50 KiB).
inline constexpr std::size_t kMaxKeyFileBytes = 1 << 20;

enum class KeyLookup : std::uint8_t {
  found,
  unknown_kid,   // the token names a kid no key has, and no kid-less key fits
  alg_mismatch,  // the selected key, or every key, is pinned to another alg
  ambiguous,     // no kid, and several keys are pinned to the token's alg
};

struct KeyChoice {
  KeyLookup lookup = KeyLookup::unknown_kid;
  const JwtKey* key = nullptr;  // set when found, and for alg_mismatch by kid
};

class KeyRing {
 public:
  // Adds every key `sources` names. Returns one line naming the config key
  // at fault and why, or nullopt. Nothing named is not an error here (the
  // caller decides whether tokens are needed).
  [[nodiscard]] std::optional<std::string> load(const KeySources& sources);

  // The pieces load() is made of; `key_name` is the config key for errors.
  [[nodiscard]] std::optional<std::string> add_secret(std::string_view secret, std::string_view key_name);
  [[nodiscard]] std::optional<std::string> add_public_pem(std::string_view pem, std::string_view key_name);
  [[nodiscard]] std::optional<std::string> add_jwks(std::string_view json_text, std::string_view key_name,
                                                    std::size_t max_keys);

  [[nodiscard]] KeyChoice choose(std::string_view kid, JwtAlg alg) const;

  [[nodiscard]] bool empty() const { return keys_.empty(); }
  [[nodiscard]] std::size_t size() const { return keys_.size(); }
  // "HS256, RS256": the algorithms some key is pinned to, for messages;
  // `kidless` keeps to the keys without a kid, those a token naming a kid
  // no key has may fall back to.
  [[nodiscard]] std::string pinned_algs(bool kidless = false) const;

 private:
  [[nodiscard]] std::optional<std::string> add(JwtKey key, std::string_view key_name);

  std::vector<JwtKey> keys_;
};

}  // namespace sluice::auth
