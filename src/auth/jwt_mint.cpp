#include "auth/jwt_mint.hpp"

#include <jwt.h>
#include <openssl/pem.h>

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "proto/base64url.hpp"
#include "auth/jwt_claims.hpp"
#include "auth/topic_patterns.hpp"

namespace sluice::auth {

namespace {

using nlohmann::json;

// The longest topic name any server accepts (topics.max_name's range).
constexpr std::size_t kMaxName = 1024;

std::optional<std::string> check_patterns(const std::vector<std::string>& patterns, const char* option) {
  TopicPatterns scratch;
  for (const std::string& p : patterns) {
    if (!scratch.add(p, kMaxName)) {
      return std::string(option) + " '" + p + "' is not a topic name, a 'prefix.*' or '*'";
    }
  }
  return std::nullopt;
}

std::string private_pem(EVP_PKEY* key) {
  const std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) return {};
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

jwt_alg_t libjwt_alg(JwtAlg alg) { return jwt_str_alg(std::string(jwt_alg_name(alg)).c_str()); }

std::optional<std::string> mint_with_libjwt(const std::string& payload, const SigningKey& key, std::string& token) {
  const std::string material = key.alg == JwtAlg::hs256 ? key.secret : private_pem(key.private_key.get());
  const std::unique_ptr<jwt_t, void (*)(jwt_t*)> jwt(
      [] {
        jwt_t* made = nullptr;
        return jwt_new(&made) == 0 ? made : nullptr;
      }(),
      &jwt_free);
  if (!jwt || material.empty() ||
      jwt_set_alg(jwt.get(), libjwt_alg(key.alg), reinterpret_cast<const unsigned char*>(material.data()),
                  static_cast<int>(material.size())) != 0 ||
      jwt_add_grants_json(jwt.get(), payload.c_str()) != 0 ||
      (!key.kid.empty() && jwt_add_header(jwt.get(), "kid", key.kid.c_str()) != 0)) {
    return "libjwt could not prepare the token";
  }
  char* encoded = jwt_encode_str(jwt.get());
  if (encoded == nullptr) return "libjwt could not sign the token";
  token = encoded;
  std::free(encoded);
  return std::nullopt;
}

std::optional<std::string> mint_eddsa(const std::string& payload, const SigningKey& key, std::string& token) {
  json header = {{"alg", "EdDSA"}, {"typ", "JWT"}};
  if (!key.kid.empty()) header["kid"] = key.kid;
  token.clear();
  proto::base64url_append(header.dump(), token);
  token += '.';
  proto::base64url_append(payload, token);
  const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char signature[114];  // Ed448's length; Ed25519's is 64
  std::size_t length = sizeof signature;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.private_key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature, &length, reinterpret_cast<const unsigned char*>(token.data()),
                     token.size()) != 1) {
    return "OpenSSL could not sign the token";
  }
  token += '.';
  proto::base64url_append(std::string_view(reinterpret_cast<const char*>(signature), length), token);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> signing_key_from_secret(std::string_view secret, SigningKey& out) {
  if (secret.size() < min_secret_bytes(JwtAlg::hs256)) {
    return "the secret must be at least 32 bytes (got " + std::to_string(secret.size()) +
           "); sluiced refuses shorter ones";
  }
  out.alg = JwtAlg::hs256;
  out.secret = std::string(secret);
  return std::nullopt;
}

std::optional<std::string> signing_key_from_pem(std::string_view pem, SigningKey& out) {
  std::string why;
  EvpKey key = read_private_pem(pem, why);
  if (!key) return why;
  const auto alg = default_alg_for(key.get(), why);
  if (!alg || !key_fits_alg(key.get(), *alg, why)) return why;
  out.alg = *alg;
  out.private_key = std::move(key);
  return std::nullopt;
}

std::optional<std::string> claims_json(const TokenClaims& claims, std::string& out) {
  if (auto error = check_patterns(claims.subscribe, "--subscribe")) return error;
  if (auto error = check_patterns(claims.publish, "--publish")) return error;
  if (claims.claim.empty() || is_registered_claim(claims.claim)) {
    return "--claim must name the server's auth.claim, not empty nor one of exp, nbf, iat, sub, aud, iss, jti (got '" +
           claims.claim + "')";
  }
  const auto iat = std::chrono::duration_cast<std::chrono::seconds>(claims.issued_at.time_since_epoch()).count();
  json payload = {{"iat", iat}, {"exp", iat + claims.ttl.count()}};
  if (!claims.subject.empty()) payload["sub"] = claims.subject;
  if (!claims.audience.empty()) payload["aud"] = claims.audience;
  if (!claims.issuer.empty()) payload["iss"] = claims.issuer;
  json grants = json::object();
  if (!claims.subscribe.empty()) grants["subscribe"] = claims.subscribe;
  if (!claims.publish.empty()) grants["publish"] = claims.publish;
  payload[claims.claim] = std::move(grants);
  out = payload.dump();
  return std::nullopt;
}

std::optional<std::string> mint_token(const TokenClaims& claims, const SigningKey& key, std::string& token) {
  std::string payload;
  if (auto error = claims_json(claims, payload)) return error;
  return key.alg == JwtAlg::eddsa ? mint_eddsa(payload, key, token) : mint_with_libjwt(payload, key, token);
}

}  // namespace sluice::auth
