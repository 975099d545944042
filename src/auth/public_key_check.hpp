// Owns: sound_public_key(), whether a public key can stand for a signer at
// all. A key that fails verifies signatures made without its private half:
// an RSA exponent of 1, an EC point off its curve (OpenSSL's own check), or
// an Ed25519/Ed448 point of small order, which OpenSSL's check lets through.
#pragma once

#include <openssl/evp.h>

namespace sluice::auth {

// False for a key no signature check should be made against (see above).
// Leaves OpenSSL's error queue empty either way.
[[nodiscard]] bool sound_public_key(EVP_PKEY* key);

}  // namespace sluice::auth
