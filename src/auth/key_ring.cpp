#include "auth/key_ring.hpp"

#include <nlohmann/json.hpp>

#include "auth/jwk.hpp"
#include "auth/secret_file.hpp"
#include "io/small_file.hpp"

namespace sluice::auth {

namespace {

std::string config_error(std::string_view key_name, std::string_view why) {
  return "config key '" + std::string(key_name) + "': " + std::string(why);
}

}  // namespace

std::optional<std::string> KeyRing::load(const KeySources& sources) {
  if (!sources.secret.empty()) {
    // Two secrets without a kid would leave every HS256 token ambiguous.
    if (!sources.secret_file.empty()) {
      return config_error("auth.jwt_secret_file", "give it or auth.jwt_secret, not both");
    }
    if (auto error = add_secret(sources.secret, "auth.jwt_secret")) return error;
  }
  std::string text;
  if (!sources.secret_file.empty()) {
    if (auto error = read_secret_file(sources.secret_file, text)) return config_error("auth.jwt_secret_file", *error);
    if (auto error = add_secret(text, "auth.jwt_secret_file")) return error;
  }
  if (!sources.public_key_file.empty()) {
    if (auto error = io::read_small_file(sources.public_key_file, kMaxKeyFileBytes, text)) {
      return config_error("auth.jwt_public_key_file", *error);
    }
    if (auto error = add_public_pem(text, "auth.jwt_public_key_file")) return error;
  }
  if (!sources.jwks_file.empty()) {
    if (auto error = io::read_small_file(sources.jwks_file, kMaxKeyFileBytes, text)) {
      return config_error("auth.jwks_file", *error);
    }
    if (auto error = add_jwks(text, "auth.jwks_file", sources.max_keys)) return error;
  }
  return std::nullopt;
}

std::optional<std::string> KeyRing::add_secret(std::string_view secret, std::string_view key_name) {
  const std::size_t need = min_secret_bytes(JwtAlg::hs256);
  if (secret.size() < need) {
    return config_error(key_name, "it must be at least " + std::to_string(need) + " bytes (got " +
                                      std::to_string(secret.size()) + "); HS256 is no stronger than its secret");
  }
  JwtKey key;
  key.alg = JwtAlg::hs256;
  key.secret = std::string(secret);
  return add(std::move(key), key_name);
}

std::optional<std::string> KeyRing::add_public_pem(std::string_view pem, std::string_view key_name) {
  std::string why;
  JwtKey key;
  key.public_key = read_public_pem(pem, why);
  if (!key.public_key) return config_error(key_name, why);
  const auto alg = default_alg_for(key.public_key.get(), why);
  if (!alg || !key_fits_alg(key.public_key.get(), *alg, why)) return config_error(key_name, why);
  key.alg = *alg;
  return add(std::move(key), key_name);
}

std::optional<std::string> KeyRing::add_jwks(std::string_view json_text, std::string_view key_name,
                                             std::size_t max_keys) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("keys") || !doc["keys"].is_array()) {
    return config_error(key_name, "not a JWKS (a JSON object with a \"keys\" array)");
  }
  const auto& keys = doc["keys"];
  if (keys.size() > max_keys) {
    return config_error(key_name, "it holds " + std::to_string(keys.size()) + " keys, more than auth.max_keys (" +
                                      std::to_string(max_keys) + ")");
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    JwtKey key;
    if (auto why = read_jwk(keys[i], key)) {
      return config_error(key_name, "key " + std::to_string(i) + (key.kid.empty() ? "" : " (kid '" + key.kid + "')") +
                                        " is refused: " + *why);
    }
    if (auto error = add(std::move(key), key_name)) return error;
  }
  return std::nullopt;
}

std::optional<std::string> KeyRing::add(JwtKey key, std::string_view key_name) {
  if (!key.kid.empty()) {
    for (const JwtKey& other : keys_) {
      if (other.kid == key.kid) return config_error(key_name, "kid '" + key.kid + "' appears twice");
    }
  }
  keys_.push_back(std::move(key));
  return std::nullopt;
}

KeyChoice KeyRing::choose(std::string_view kid, JwtAlg alg) const {
  if (!kid.empty()) {
    for (const JwtKey& key : keys_) {
      if (key.kid == kid) return {key.alg == alg ? KeyLookup::found : KeyLookup::alg_mismatch, &key};
    }
  }
  // No kid, or one no key has: the only key pinned to the alg, among those
  // without a kid of their own when the token named one (issuers often put
  // a kid even on a single secret; a JWKS key is only ever chosen by its kid
  // then).
  const JwtKey* only = nullptr;
  bool other_alg = false;
  for (const JwtKey& key : keys_) {
    if (!kid.empty() && !key.kid.empty()) continue;
    if (key.alg != alg) {
      other_alg = true;
      continue;
    }
    if (only != nullptr) return {KeyLookup::ambiguous, nullptr};
    only = &key;
  }
  if (only != nullptr) return {KeyLookup::found, only};
  return {!kid.empty() && !other_alg ? KeyLookup::unknown_kid : KeyLookup::alg_mismatch, nullptr};
}

std::string KeyRing::pinned_algs(bool kidless) const {
  std::string out;
  for (const JwtKey& key : keys_) {
    if (kidless && !key.kid.empty()) continue;
    const std::string_view name = jwt_alg_name(key.alg);
    if (out.find(name) != std::string::npos) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out.empty() ? "none configured" : out;
}

}  // namespace sluice::auth
