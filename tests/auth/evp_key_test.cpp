#include "auth/evp_key.hpp"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using test::keys;
using test::pem_of;

TEST(EvpKey, ReadsAPublicKeyPemAndPinsItsAlgorithmByType) {
  struct Case {
    EVP_PKEY* key;
    JwtAlg alg;
  };
  for (const Case& c : {Case{keys().rsa.get(), JwtAlg::rs256}, Case{keys().p256.get(), JwtAlg::es256},
                        Case{keys().p384.get(), JwtAlg::es384}, Case{keys().ed25519.get(), JwtAlg::eddsa}}) {
    std::string why;
    const EvpKey read = read_public_pem(pem_of(c.key, false), why);
    ASSERT_TRUE(read) << why;
    EXPECT_EQ(EVP_PKEY_eq(read.get(), c.key), 1);
    EXPECT_EQ(default_alg_for(read.get(), why), c.alg) << jwt_alg_name(c.alg);
  }
}

TEST(EvpKey, RefusesAPrivateKeyWhereAPublicOneBelongs) {
  std::string why;
  EXPECT_FALSE(read_public_pem(pem_of(keys().rsa.get(), true), why));
  EXPECT_NE(why.find("private key"), std::string::npos) << why;
  EXPECT_FALSE(read_public_pem("not a pem", why));
  EXPECT_NE(why.find("no public key"), std::string::npos) << why;
}

// An RSA key whose exponent is 1 makes any signature easy to forge: a
// "signature" that is the padded hash verifies. OpenSSL's check refuses it.
TEST(EvpKey, RefusesAPublicKeyThatFailsOpenSslsCheck) {
  BIGNUM* n = nullptr;
  ASSERT_EQ(EVP_PKEY_get_bn_param(keys().rsa.get(), OSSL_PKEY_PARAM_RSA_N, &n), 1);
  BIGNUM* e = BN_new();
  BN_set_word(e, 1);
  OSSL_PARAM_BLD* build = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_N, n);
  OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_E, e);
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(build);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr);
  EVP_PKEY* weak = nullptr;
  ASSERT_EQ(EVP_PKEY_fromdata_init(ctx), 1);
  ASSERT_EQ(EVP_PKEY_fromdata(ctx, &weak, EVP_PKEY_PUBLIC_KEY, params), 1);
  const std::string pem = pem_of(weak, false);
  EVP_PKEY_free(weak);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(build);
  BN_free(e);
  BN_free(n);
  std::string why;
  EXPECT_FALSE(read_public_pem(pem, why));
  EXPECT_NE(why.find("cannot stand for a signer"), std::string::npos) << why;
}

TEST(EvpKey, RefusesAnEd25519PublicKeyOfSmallOrder) {
  unsigned char identity[32] = {1};
  EVP_PKEY* weak = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, identity, sizeof identity);
  ASSERT_NE(weak, nullptr);
  const std::string pem = pem_of(weak, false);
  EVP_PKEY_free(weak);
  std::string why;
  EXPECT_FALSE(read_public_pem(pem, why));
  EXPECT_NE(why.find("cannot stand for a signer"), std::string::npos) << why;
}

TEST(EvpKey, ReadsTheSubjectKeyOfACertificate) {
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, keys().p256.get());
  X509_sign(cert, keys().p256.get(), EVP_sha256());
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  const std::string pem(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  X509_free(cert);
  std::string why;
  const EvpKey read = read_public_pem(pem, why);
  ASSERT_TRUE(read) << why;
  EXPECT_EQ(EVP_PKEY_eq(read.get(), keys().p256.get()), 1);
}

TEST(EvpKey, EachAlgorithmNeedsItsOwnKind) {
  std::string why;
  EXPECT_TRUE(key_fits_alg(keys().rsa.get(), JwtAlg::rs512, why));
  EXPECT_FALSE(key_fits_alg(keys().rsa.get(), JwtAlg::es256, why));
  EXPECT_FALSE(key_fits_alg(keys().rsa.get(), JwtAlg::hs256, why));
  EXPECT_NE(why.find("shared secret"), std::string::npos) << why;
  EXPECT_TRUE(key_fits_alg(keys().p256.get(), JwtAlg::es256, why));
  EXPECT_FALSE(key_fits_alg(keys().p256.get(), JwtAlg::es384, why));
  EXPECT_NE(why.find("secp384r1"), std::string::npos) << why;
  EXPECT_FALSE(key_fits_alg(keys().ed25519.get(), JwtAlg::rs256, why));
  EXPECT_TRUE(key_fits_alg(keys().ed25519.get(), JwtAlg::eddsa, why));
  EXPECT_FALSE(key_fits_alg(keys().p256.get(), JwtAlg::eddsa, why));
}

TEST(EvpKey, RefusesShortRsaKeys) {
  const EvpKey small(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(1024)));
  ASSERT_TRUE(small);
  std::string why;
  EXPECT_FALSE(key_fits_alg(small.get(), JwtAlg::rs256, why));
  EXPECT_NE(why.find("2048"), std::string::npos) << why;
}

TEST(EvpKey, RefusesCurvesJwsDoesNotName) {
  const EvpKey k256(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "secp256k1"));
  ASSERT_TRUE(k256);
  std::string why;
  EXPECT_EQ(default_alg_for(k256.get(), why), std::nullopt);
  EXPECT_NE(why.find("secp256k1"), std::string::npos) << why;
}

TEST(EvpKey, ReadsUnencryptedPrivateKeysOnly) {
  std::string why;
  EXPECT_TRUE(read_private_pem(pem_of(keys().p256.get(), true), why));
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, keys().p256.get(), EVP_aes_128_cbc(), nullptr, 0, nullptr,
                           const_cast<char*>("passphrase"));
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  const std::string encrypted(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  EXPECT_FALSE(read_private_pem(encrypted, why));
  EXPECT_NE(why.find("unencrypted"), std::string::npos) << why;
}

}  // namespace
}  // namespace sluice::auth
