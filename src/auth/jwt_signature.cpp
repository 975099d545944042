#include "auth/jwt_signature.hpp"

#include <jwt.h>
#include <openssl/evp.h>

#include <cerrno>
#include <memory>
#include <string>

#include "proto/base64url.hpp"

namespace sluice::auth {

namespace {

jwt_alg_t libjwt_alg(JwtAlg alg) {
  switch (alg) {
    case JwtAlg::hs256: return JWT_ALG_HS256;
    case JwtAlg::hs384: return JWT_ALG_HS384;
    case JwtAlg::hs512: return JWT_ALG_HS512;
    case JwtAlg::rs256: return JWT_ALG_RS256;
    case JwtAlg::rs384: return JWT_ALG_RS384;
    case JwtAlg::rs512: return JWT_ALG_RS512;
    case JwtAlg::es256: return JWT_ALG_ES256;
    case JwtAlg::es384: return JWT_ALG_ES384;
    case JwtAlg::es512: return JWT_ALG_ES512;
    case JwtAlg::eddsa: break;
  }
  return JWT_ALG_INVAL;
}

SignatureCheck check_with_libjwt(const JwtKey& key, std::string_view token) {
  const std::string& bytes = key_kind(key.alg) == KeyKind::secret ? key.secret : key.pem;
  // Without key bytes jwt_decode() would accept any signature.
  if (bytes.empty()) return SignatureCheck::invalid;
  const std::string terminated(token);  // jwt_decode() reads up to a NUL
  jwt_t* decoded = nullptr;
  const int rc = jwt_decode(&decoded, terminated.c_str(), reinterpret_cast<const unsigned char*>(bytes.data()),
                            static_cast<int>(bytes.size()));
  if (rc == ENOMEM) return SignatureCheck::out_of_memory;
  if (rc != 0 || decoded == nullptr) return SignatureCheck::invalid;
  // The algorithm libjwt actually used must be the pinned one, whatever its
  // own reading of the header made of it (a repeated "alg", say).
  const bool pinned = jwt_get_alg(decoded) == libjwt_alg(key.alg);
  jwt_free(decoded);
  return pinned ? SignatureCheck::valid : SignatureCheck::invalid;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

SignatureCheck check_eddsa(const JwtKey& key, std::string_view signing_input, std::string_view signature) {
  std::string raw;
  if (!key.public_key || !proto::base64url_decode(signature, raw)) return SignatureCheck::invalid;
  const std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx) return SignatureCheck::out_of_memory;
  // EdDSA hashes internally: no digest is named, and the whole message is
  // passed in one call (Ed25519 cannot be fed in pieces).
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.public_key.get()) != 1) {
    return SignatureCheck::invalid;
  }
  const int ok = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(raw.data()), raw.size(),
                                  reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size());
  return ok == 1 ? SignatureCheck::valid : SignatureCheck::invalid;
}

}  // namespace

SignatureCheck check_signature(const JwtKey& key, std::string_view token, std::string_view signing_input,
                               std::string_view signature) {
  if (key.alg == JwtAlg::eddsa) return check_eddsa(key, signing_input, signature);
  return check_with_libjwt(key, token);
}

}  // namespace sluice::auth
