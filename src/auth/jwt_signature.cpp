#include "auth/jwt_signature.hpp"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <memory>
#include <string>

#include "proto/base64url.hpp"

namespace sluice::auth {

namespace {

// The hash each algorithm signs with; EdDSA hashes inside its signature.
const char* digest_name(JwtAlg alg) {
  switch (alg) {
    case JwtAlg::hs256:
    case JwtAlg::rs256:
    case JwtAlg::es256: return "SHA256";
    case JwtAlg::hs384:
    case JwtAlg::rs384:
    case JwtAlg::es384: return "SHA384";
    case JwtAlg::hs512:
    case JwtAlg::rs512:
    case JwtAlg::es512: return "SHA512";
    case JwtAlg::eddsa: break;
  }
  return nullptr;
}

// The MAC is compared in constant time: how many leading bytes of a guess
// were right must not show in how long the refusal takes. (A failure of
// OpenSSL's own is reported as out of memory: either way the token is not
// taken.)
SignatureCheck check_hmac(const JwtKey& key, std::string_view input, const std::string& raw) {
  if (key.secret.empty()) return SignatureCheck::invalid;
  unsigned char mac[EVP_MAX_MD_SIZE];
  std::size_t length = 0;
  if (EVP_Q_mac(nullptr, "HMAC", nullptr, digest_name(key.alg), nullptr, key.secret.data(), key.secret.size(),
                reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, sizeof mac,
                &length) == nullptr) {
    return SignatureCheck::out_of_memory;
  }
  return raw.size() == length && CRYPTO_memcmp(raw.data(), mac, length) == 0 ? SignatureCheck::valid
                                                                              : SignatureCheck::invalid;
}

struct SigFree {
  void operator()(ECDSA_SIG* sig) const { ECDSA_SIG_free(sig); }
};

// A JWS writes an ECDSA signature as r then s, each as long as the curve's
// order (32, 48 or 66 bytes); OpenSSL verifies the DER form of the pair.
// Any other length is not a signature of this key.
bool ecdsa_der(EVP_PKEY* key, const std::string& raw, std::string& der) {
  const auto half = static_cast<std::size_t>((EVP_PKEY_get_bits(key) + 7) / 8);
  if (half == 0 || raw.size() != 2 * half) return false;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  const std::unique_ptr<ECDSA_SIG, SigFree> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes, static_cast<int>(half), nullptr);
  BIGNUM* s = BN_bin2bn(bytes + half, static_cast<int>(half), nullptr);
  if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return false;
  }
  const int length = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (length <= 0) return false;
  der.resize(static_cast<std::size_t>(length));
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  return i2d_ECDSA_SIG(sig.get(), &out) == length;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

// RSA keys verify PKCS #1 v1.5 (OpenSSL's default for them), the RS*
// algorithms'; the key's type was matched to its algorithm when it was
// read.
SignatureCheck check_public(const JwtKey& key, std::string_view input, const std::string& raw) {
  if (!key.public_key) return SignatureCheck::invalid;
  std::string der;
  std::string_view signature = raw;
  if (key_kind(key.alg) == KeyKind::ec) {
    if (!ecdsa_der(key.public_key.get(), raw, der)) return SignatureCheck::invalid;
    signature = der;
  }
  const std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx) return SignatureCheck::out_of_memory;
  const char* digest = digest_name(key.alg);
  if (EVP_DigestVerifyInit_ex(ctx.get(), nullptr, digest, nullptr, nullptr, key.public_key.get(), nullptr) != 1) {
    return SignatureCheck::invalid;
  }
  // One call: EdDSA cannot be fed its message in pieces.
  const int ok = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                                  signature.size(), reinterpret_cast<const unsigned char*>(input.data()),
                                  input.size());
  return ok == 1 ? SignatureCheck::valid : SignatureCheck::invalid;
}

}  // namespace

SignatureCheck check_signature(const JwtKey& key, std::string_view signing_input, std::string_view signature) {
  std::string raw;
  if (!proto::base64url_decode(signature, raw)) return SignatureCheck::invalid;
  const SignatureCheck result = key_kind(key.alg) == KeyKind::secret ? check_hmac(key, signing_input, raw)
                                                                     : check_public(key, signing_input, raw);
  // A refusal leaves OpenSSL's reasons on this thread's error queue, where
  // the next TLS call on the loop would find them.
  if (result != SignatureCheck::valid) ERR_clear_error();
  return result;
}

}  // namespace sluice::auth
