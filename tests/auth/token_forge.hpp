// Owns: the tests' own token maker. It builds a compact JWT from any header
// and payload text and signs it with OpenSSL directly (HMAC, RSA, ECDSA in
// the JOSE R||S form, EdDSA), never through the code under test, so tokens
// the verifier must refuse (alg none, algorithm confusion, a forged header)
// can be made as easily as good ones. Test keys are generated once per run.
#pragma once

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "proto/base64url.hpp"
#include "auth/evp_key.hpp"

namespace sluice::auth::test {

inline std::string b64(std::string_view bytes) {
  std::string out;
  proto::base64url_append(bytes, out);
  return out;
}

inline EvpKey generate(const char* type, const char* param = nullptr) {
  EVP_PKEY* key = nullptr;
  if (std::string_view(type) == "RSA")
    key = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048));
  else if (std::string_view(type) == "EC")
    key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", param);
  else
    key = EVP_PKEY_Q_keygen(nullptr, nullptr, type);
  if (key == nullptr) throw std::runtime_error("key generation failed");
  return EvpKey(key);
}

struct TestKeys {
  EvpKey rsa = generate("RSA");
  EvpKey rsa_other = generate("RSA");
  EvpKey p256 = generate("EC", "P-256");
  EvpKey p384 = generate("EC", "P-384");
  EvpKey ed25519 = generate("ED25519");
};

// One set per test binary: RSA generation is slow under the sanitizers.
inline const TestKeys& keys() {
  static const TestKeys instance;
  return instance;
}

inline std::string pem_of(EVP_PKEY* key, bool private_half) {
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  const int ok = private_half ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
                              : PEM_write_bio_PUBKEY(bio.get(), key);
  if (ok != 1) throw std::runtime_error("PEM write failed");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

inline std::string hmac(const EVP_MD* md, std::string_view secret, std::string_view input) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(md, secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(input.data()),
       input.size(), out, &length);
  return std::string(reinterpret_cast<char*>(out), length);
}

// ECDSA signatures come out of OpenSSL as DER; JWS wants R and S each
// padded to the curve's size, back to back (RFC 7518 §3.4).
inline std::string der_to_jose(std::string_view der, std::size_t half) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
  if (sig == nullptr) throw std::runtime_error("bad DER signature");
  std::string out(2 * half, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(half));
  BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(out.data() + half), static_cast<int>(half));
  ECDSA_SIG_free(sig);
  return out;
}

// `md` null for EdDSA. ECDSA signatures are converted to the JOSE form.
inline std::string evp_sign(EVP_PKEY* key, const EVP_MD* md, std::string_view input) {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, key) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length, data, input.size()) != 1) {
    throw std::runtime_error("sign init failed");
  }
  std::string out(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &length, data, input.size()) != 1) {
    throw std::runtime_error("sign failed");
  }
  out.resize(length);
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC) out = der_to_jose(out, (EVP_PKEY_get_bits(key) + 7) / 8);
  return out;
}

inline std::string signing_input(std::string_view header, std::string_view payload) {
  return b64(header) + "." + b64(payload);
}

inline std::string hs256(std::string_view header, std::string_view payload, std::string_view secret) {
  const std::string input = signing_input(header, payload);
  return input + "." + b64(hmac(EVP_sha256(), secret, input));
}

inline std::string signed_with(EVP_PKEY* key, const EVP_MD* md, std::string_view header, std::string_view payload) {
  const std::string input = signing_input(header, payload);
  return input + "." + b64(evp_sign(key, md, input));
}

inline std::string unsigned_token(std::string_view header, std::string_view payload) {
  return signing_input(header, payload) + ".";
}

// A JWK (public members only) for a test key, with `alg` and `kid`.
inline std::string jwk_of(EVP_PKEY* key, std::string_view alg, std::string_view kid) {
  std::string members;
  auto bn = [&](const char* param) {
    BIGNUM* n = nullptr;
    EVP_PKEY_get_bn_param(key, param, &n);
    std::string bytes(static_cast<std::size_t>(BN_num_bytes(n)), '\0');
    BN_bn2bin(n, reinterpret_cast<unsigned char*>(bytes.data()));
    BN_free(n);
    return bytes;
  };
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
      members = R"("kty":"RSA","n":")" + b64(bn(OSSL_PKEY_PARAM_RSA_N)) + R"(","e":")" +
                b64(bn(OSSL_PKEY_PARAM_RSA_E)) + "\"";
      break;
    case EVP_PKEY_EC: {
      const std::size_t size = (EVP_PKEY_get_bits(key) + 7) / 8;
      auto coordinate = [&](const char* param) {
        std::string raw = bn(param);
        return std::string(size - raw.size(), '\0') + raw;
      };
      const char* crv = size == 32 ? "P-256" : size == 48 ? "P-384" : "P-521";
      members = R"("kty":"EC","crv":")" + std::string(crv) + R"(","x":")" + b64(coordinate(OSSL_PKEY_PARAM_EC_PUB_X)) +
                R"(","y":")" + b64(coordinate(OSSL_PKEY_PARAM_EC_PUB_Y)) + "\"";
      break;
    }
    default: {
      unsigned char raw[64];
      std::size_t length = sizeof raw;
      EVP_PKEY_get_raw_public_key(key, raw, &length);
      members =
          R"("kty":"OKP","crv":"Ed25519","x":")" + b64(std::string_view(reinterpret_cast<char*>(raw), length)) + "\"";
    }
  }
  return "{" + members + R"(,"alg":")" + std::string(alg) + R"(","kid":")" + std::string(kid) + "\"}";
}

}  // namespace sluice::auth::test
