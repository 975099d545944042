#include "auth/jwk.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "auth/public_key_check.hpp"
#include "proto/base64url.hpp"

namespace sluice::auth {

namespace {

using nlohmann::json;

// A required base64url member; nullopt when absent, not a string or not base64url.
std::optional<std::string> bytes_member(const json& jwk, const char* name) {
  const auto it = jwk.find(name);
  std::string bytes;
  if (it == jwk.end() || !it->is_string() || !proto::base64url_decode(it->get_ref<const std::string&>(), bytes)) {
    return std::nullopt;
  }
  return bytes;
}

std::string text_member(const json& jwk, const char* name) {
  const auto it = jwk.find(name);
  return it != jwk.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// `use` and `key_ops`, when present, must allow verifying signatures.
std::optional<std::string> check_purpose(const json& jwk) {
  if (jwk.contains("use") && text_member(jwk, "use") != "sig") return "its use is not \"sig\"";
  if (const auto ops = jwk.find("key_ops"); ops != jwk.end()) {
    const bool verifies = ops->is_array() && std::find(ops->begin(), ops->end(), json("verify")) != ops->end();
    if (!verifies) return "its key_ops do not include \"verify\"";
  }
  return std::nullopt;
}

struct ParamBuildFree {
  void operator()(OSSL_PARAM_BLD* b) const { OSSL_PARAM_BLD_free(b); }
};
struct ParamFree {
  void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
struct CtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
struct BnFree {
  void operator()(BIGNUM* n) const { BN_free(n); }
};

EvpKey key_from_params(const char* type, OSSL_PARAM_BLD* build) {
  const std::unique_ptr<OSSL_PARAM, ParamFree> params(OSSL_PARAM_BLD_to_param(build));
  const std::unique_ptr<EVP_PKEY_CTX, CtxFree> ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  return EvpKey(key);
}

EvpKey rsa_key(const std::string& n, const std::string& e) {
  const std::unique_ptr<OSSL_PARAM_BLD, ParamBuildFree> build(OSSL_PARAM_BLD_new());
  const std::unique_ptr<BIGNUM, BnFree> bn_n(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr));
  const std::unique_ptr<BIGNUM, BnFree> bn_e(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr));
  if (!build || !bn_n || !bn_e || OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return nullptr;
  }
  return key_from_params("RSA", build.get());
}

EvpKey ec_key(std::string_view group, const std::string& x, const std::string& y) {
  std::string point = "\x04" + x + y;  // SEC 1 uncompressed form
  const std::unique_ptr<OSSL_PARAM_BLD, ParamBuildFree> build(OSSL_PARAM_BLD_new());
  if (!build ||
      OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, group.data(), group.size()) != 1 ||
      OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1) {
    return nullptr;
  }
  return key_from_params("EC", build.get());
}

std::size_t ec_coordinate_bytes(JwtAlg alg) { return alg == JwtAlg::es256 ? 32 : alg == JwtAlg::es384 ? 48 : 66; }

std::optional<std::string> read_oct(const json& jwk, JwtKey& out) {
  const auto k = bytes_member(jwk, "k");
  if (!k) return "it has no base64url \"k\"";
  if (k->size() < min_secret_bytes(out.alg)) {
    return std::string(jwt_alg_name(out.alg)) + " needs a secret of at least " +
           std::to_string(min_secret_bytes(out.alg)) + " bytes";
  }
  out.secret = *k;
  return std::nullopt;
}

std::optional<std::string> read_public(const json& jwk, JwtKey& out) {
  const std::string kty = text_member(jwk, "kty");
  const std::string crv = text_member(jwk, "crv");
  EvpKey key;
  if (kty == "RSA") {
    const auto n = bytes_member(jwk, "n");
    const auto e = bytes_member(jwk, "e");
    if (!n || !e) return "it has no base64url \"n\" and \"e\"";
    key = rsa_key(*n, *e);
  } else if (kty == "EC") {
    const auto x = bytes_member(jwk, "x");
    const auto y = bytes_member(jwk, "y");
    const std::size_t size = ec_coordinate_bytes(out.alg);
    if (!x || !y || x->size() != size || y->size() != size) return "its \"x\" and \"y\" are not the curve's size";
    const char* expected_crv = out.alg == JwtAlg::es256 ? "P-256" : out.alg == JwtAlg::es384 ? "P-384" : "P-521";
    if (crv != expected_crv) return std::string(jwt_alg_name(out.alg)) + " needs crv " + expected_crv;
    key = ec_key(ec_group_for(out.alg), *x, *y);
  } else if (kty == "OKP") {
    const auto x = bytes_member(jwk, "x");
    const int type = crv == "Ed25519" ? EVP_PKEY_ED25519 : crv == "Ed448" ? EVP_PKEY_ED448 : EVP_PKEY_NONE;
    if (type == EVP_PKEY_NONE) return "EdDSA needs crv Ed25519 or Ed448";
    if (!x) return "it has no base64url \"x\"";
    key.reset(EVP_PKEY_new_raw_public_key(type, nullptr, reinterpret_cast<const unsigned char*>(x->data()), x->size()));
  }
  if (!key) return "its public key does not load (a point off the curve, or a malformed modulus)";
  // A key that would make every signature check meaningless.
  if (!sound_public_key(key.get())) {
    return "its public key cannot stand for a signer (an RSA exponent of 1, a point off its curve or of small order)";
  }
  std::string why;
  if (!key_fits_alg(key.get(), out.alg, why)) return why;
  out.public_key = std::move(key);
  return std::nullopt;
}

const char* kty_for(JwtAlg alg) {
  switch (key_kind(alg)) {
    case KeyKind::secret: return "oct";
    case KeyKind::rsa: return "RSA";
    case KeyKind::ec: return "EC";
    case KeyKind::okp: return "OKP";
  }
  return "?";
}

}  // namespace

std::optional<std::string> read_jwk(const json& jwk, JwtKey& out) {
  if (!jwk.is_object()) return "it is not a JSON object";
  if (jwk.contains("kid")) {
    const auto& kid = jwk["kid"];
    if (!kid.is_string() || kid.get_ref<const std::string&>().size() > kMaxKidBytes) return "its kid is not a short string";
    out.kid = kid.get<std::string>();
  }
  const auto alg = parse_jwt_alg(text_member(jwk, "alg"));
  if (!alg) return "it names no supported \"alg\" (each key must pin one)";
  out.alg = *alg;
  if (text_member(jwk, "kty") != kty_for(out.alg)) {
    return std::string(jwt_alg_name(out.alg)) + " needs kty \"" + kty_for(out.alg) + "\"";
  }
  if (key_kind(out.alg) != KeyKind::secret && (jwk.contains("d") || jwk.contains("p"))) {
    return "it holds private key members; publish only the public key";
  }
  if (auto error = check_purpose(jwk)) return error;
  return key_kind(out.alg) == KeyKind::secret ? read_oct(jwk, out) : read_public(jwk, out);
}

}  // namespace sluice::auth
