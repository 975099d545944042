// Owns: EvpKey, an owned OpenSSL key, and the checks that tie a key to the
// one JWT algorithm it may serve: an RSA key of at least 2048 bits for
// RS256/384/512, a P-256/P-384/P-521 key for ES256/384/512 respectively, an
// Ed25519 or Ed448 key for EdDSA. Keys are read from PEM text (a public key,
// a certificate, or for minting a private key).
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/jwt_alg.hpp"

namespace sluice::auth {

struct EvpKeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using EvpKey = std::unique_ptr<EVP_PKEY, EvpKeyFree>;

// RSA keys shorter than this are refused: 1024-bit RSA is within reach.
inline constexpr int kMinRsaBits = 2048;

// A public key from PEM: "PUBLIC KEY" (SubjectPublicKeyInfo, what `openssl
// pkey -pubout` writes) or a "CERTIFICATE" (its subject key). Null with
// `why` set otherwise.
[[nodiscard]] EvpKey read_public_pem(std::string_view pem, std::string& why);

// A private key from PEM (PKCS#8, or the traditional RSA/EC forms),
// unencrypted. Null with `why` set otherwise.
[[nodiscard]] EvpKey read_private_pem(std::string_view pem, std::string& why);

// The algorithm a key is pinned to when the configuration names none: RS256
// for RSA, ES256/384/512 by curve, EdDSA for Ed25519/Ed448. nullopt with
// `why` set for any other key.
[[nodiscard]] std::optional<JwtAlg> default_alg_for(EVP_PKEY* key, std::string& why);

// True when `key` is the kind `alg` needs (see the banner); `why` otherwise.
[[nodiscard]] bool key_fits_alg(EVP_PKEY* key, JwtAlg alg, std::string& why);

}  // namespace sluice::auth
