#include "auth/evp_key.hpp"

#include "auth/public_key_check.hpp"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

namespace sluice::auth {

namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

Bio memory_bio(std::string_view text) { return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size()))); }

std::string group_name(EVP_PKEY* key) {
  char name[64] = {};
  std::size_t length = 0;
  if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &length) != 1) return {};
  return std::string(name, length);
}

EvpKey read_certificate_key(std::string_view pem) {
  const Bio bio = memory_bio(pem);
  X509* cert = bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (cert == nullptr) return nullptr;
  EvpKey key(X509_get_pubkey(cert));
  X509_free(cert);
  return key;
}

}  // namespace

EvpKey read_public_pem(std::string_view pem, std::string& why) {
  if (pem.find("PRIVATE KEY-----") != std::string_view::npos) {
    why = "the PEM holds a private key; give the public half (openssl pkey -pubout)";
    return nullptr;
  }
  EvpKey key;
  if (const Bio bio = memory_bio(pem)) key = EvpKey(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  if (!key) key = read_certificate_key(pem);
  if (!key) {
    why = "the PEM holds no public key (BEGIN PUBLIC KEY) or certificate";
    return nullptr;
  }
  if (!sound_public_key(key.get())) {
    why = "the public key cannot stand for a signer (an RSA exponent of 1, a point off its curve or of small order)";
    return nullptr;
  }
  return key;
}

EvpKey read_private_pem(std::string_view pem, std::string& why) {
  const Bio bio = memory_bio(pem);
  // An empty passphrase callback: an encrypted key fails here rather than
  // prompting on the terminal.
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(
                            bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr)
                      : nullptr;
  if (key == nullptr) why = "the PEM holds no unencrypted private key";
  return EvpKey(key);
}

std::optional<JwtAlg> default_alg_for(EVP_PKEY* key, std::string& why) {
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA: return JwtAlg::rs256;
    case EVP_PKEY_ED25519:
    case EVP_PKEY_ED448: return JwtAlg::eddsa;
    case EVP_PKEY_EC: {
      const std::string group = group_name(key);
      for (const JwtAlg alg : {JwtAlg::es256, JwtAlg::es384, JwtAlg::es512}) {
        if (group == ec_group_for(alg)) return alg;
      }
      why = "the key is on EC curve '" + group + "'; ES256/384/512 need P-256, P-384 or P-521";
      return std::nullopt;
    }
    default:
      why = "the key is neither an RSA, an EC (P-256, P-384, P-521) nor an Ed25519/Ed448 key";
      return std::nullopt;
  }
}

bool key_fits_alg(EVP_PKEY* key, JwtAlg alg, std::string& why) {
  const int id = EVP_PKEY_get_base_id(key);
  const std::string name(jwt_alg_name(alg));
  switch (key_kind(alg)) {
    case KeyKind::secret: why = name + " needs a shared secret, not a public key"; return false;
    case KeyKind::rsa:
      if (id != EVP_PKEY_RSA)
        why = name + " needs an RSA key";
      else if (EVP_PKEY_get_bits(key) < kMinRsaBits)
        why = "RSA keys must have at least 2048 bits";
      else
        return true;
      return false;
    case KeyKind::ec:
      if (id == EVP_PKEY_EC && group_name(key) == ec_group_for(alg)) return true;
      why = name + " needs an EC key on curve " + std::string(ec_group_for(alg));
      return false;
    case KeyKind::okp:
      if (id == EVP_PKEY_ED25519 || id == EVP_PKEY_ED448) return true;
      why = "EdDSA needs an Ed25519 or Ed448 key";
      return false;
  }
  return false;
}

}  // namespace sluice::auth
