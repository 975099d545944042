// The signature check on its own, and the libjwt 1.10 behaviour that makes
// the pinning around it necessary: if one of the LibJwt tests starts
// failing, a newer libjwt has changed, and the notes in jwt_signature.hpp
// and docs/SECURITY.md should be read again.
#include "auth/jwt_signature.hpp"

#include <gtest/gtest.h>
#include <jwt.h>

#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using test::keys;
using test::pem_of;

const std::string kSecret(32, 's');
constexpr std::string_view kPayload = R"({"sub":"u1"})";

JwtKey secret_key() {
  JwtKey key;
  key.alg = JwtAlg::hs256;
  key.secret = kSecret;
  return key;
}

JwtKey public_key(EVP_PKEY* pkey, JwtAlg alg) {
  JwtKey key;
  key.alg = alg;
  std::string why;
  key.public_key = read_public_pem(pem_of(pkey, false), why);
  key.pem = public_pem(key.public_key.get());
  return key;
}

SignatureCheck check(const JwtKey& key, const std::string& token) {
  const std::size_t last = token.rfind('.');
  return check_signature(key, token, std::string_view(token).substr(0, last), std::string_view(token).substr(last + 1));
}

std::string header(std::string_view alg) { return R"({"alg":")" + std::string(alg) + R"(","typ":"JWT"})"; }

TEST(JwtSignature, VerifiesEachAlgorithmFamily) {
  EXPECT_EQ(check(secret_key(), test::hs256(header("HS256"), kPayload, kSecret)), SignatureCheck::valid);
  EXPECT_EQ(check(public_key(keys().rsa.get(), JwtAlg::rs256),
                  test::signed_with(keys().rsa.get(), EVP_sha256(), header("RS256"), kPayload)),
            SignatureCheck::valid);
  EXPECT_EQ(check(public_key(keys().p256.get(), JwtAlg::es256),
                  test::signed_with(keys().p256.get(), EVP_sha256(), header("ES256"), kPayload)),
            SignatureCheck::valid);
  EXPECT_EQ(check(public_key(keys().p384.get(), JwtAlg::es384),
                  test::signed_with(keys().p384.get(), EVP_sha384(), header("ES384"), kPayload)),
            SignatureCheck::valid);
  EXPECT_EQ(check(public_key(keys().ed25519.get(), JwtAlg::eddsa),
                  test::signed_with(keys().ed25519.get(), nullptr, header("EdDSA"), kPayload)),
            SignatureCheck::valid);
}

TEST(JwtSignature, RefusesAnotherKeysSignature) {
  EXPECT_EQ(check(secret_key(), test::hs256(header("HS256"), kPayload, std::string(32, 'x'))), SignatureCheck::invalid);
  EXPECT_EQ(check(public_key(keys().rsa.get(), JwtAlg::rs256),
                  test::signed_with(keys().rsa_other.get(), EVP_sha256(), header("RS256"), kPayload)),
            SignatureCheck::invalid);
}

TEST(JwtSignature, RefusesATamperedPayloadOrSignature) {
  const std::string good = test::signed_with(keys().ed25519.get(), nullptr, header("EdDSA"), kPayload);
  const JwtKey key = public_key(keys().ed25519.get(), JwtAlg::eddsa);
  std::string payload_changed = test::signing_input(header("EdDSA"), R"({"sub":"u2"})") + good.substr(good.rfind('.'));
  EXPECT_EQ(check(key, payload_changed), SignatureCheck::invalid);
  std::string sig_changed = good;
  sig_changed[sig_changed.size() - 3] = sig_changed[sig_changed.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_EQ(check(key, sig_changed), SignatureCheck::invalid);
  std::string hs = test::hs256(header("HS256"), kPayload, kSecret);
  hs[hs.size() - 5] = hs[hs.size() - 5] == 'A' ? 'B' : 'A';
  EXPECT_EQ(check(secret_key(), hs), SignatureCheck::invalid);
}

TEST(JwtSignature, AKeyWithoutBytesNeverVerifies) {
  JwtKey empty;
  empty.alg = JwtAlg::hs256;
  EXPECT_EQ(check(empty, test::hs256(header("HS256"), kPayload, kSecret)), SignatureCheck::invalid);
}

TEST(JwtSignature, ChecksTheAlgorithmLibjwtUsedAgainstThePinnedOne) {
  // The key is pinned to HS384 but the token says HS256: whatever let it
  // get this far, libjwt verifies with HS256 and the result is refused.
  JwtKey key = secret_key();
  key.alg = JwtAlg::hs384;
  EXPECT_EQ(check(key, test::hs256(header("HS256"), kPayload, kSecret)), SignatureCheck::invalid);
}

// libjwt 1.10 verifies with the algorithm the token names, using the key
// bytes it is given as whatever that algorithm needs: the RSA public key's
// PEM text becomes an HMAC secret that anyone can sign with.
TEST(LibJwt, TakesTheAlgorithmFromTheTokenSoAPublicKeyBecomesAnHmacSecret) {
  const std::string pem = public_pem(keys().rsa.get());
  const std::string forged = test::hs256(header("HS256"), kPayload, pem);
  jwt_t* decoded = nullptr;
  EXPECT_EQ(jwt_decode(&decoded, forged.c_str(), reinterpret_cast<const unsigned char*>(pem.data()),
                       static_cast<int>(pem.size())),
            0);
  jwt_free(decoded);
  // The same token through sluice's check, with the key pinned to RS256.
  EXPECT_EQ(check(public_key(keys().rsa.get(), JwtAlg::rs256), forged), SignatureCheck::invalid);
}

// ... and with no key at all it checks no signature.
TEST(LibJwt, WithoutAKeyAcceptsAnySignature) {
  const std::string token = test::hs256(header("HS256"), kPayload, "not the secret at all, 32 bytes.");
  jwt_t* decoded = nullptr;
  EXPECT_EQ(jwt_decode(&decoded, token.c_str(), nullptr, 0), 0);
  jwt_free(decoded);
}

// ... and it knows no EdDSA, which is why that path uses OpenSSL directly.
TEST(LibJwt, KnowsNoEdDsa) {
  EXPECT_EQ(jwt_str_alg("EdDSA"), JWT_ALG_INVAL);
  EXPECT_EQ(jwt_str_alg("PS256"), JWT_ALG_INVAL);
  EXPECT_EQ(jwt_str_alg("ES256"), JWT_ALG_ES256);
}

// What it does refuse by itself: alg none when a key is given.
TEST(LibJwt, RefusesAlgNoneWhenGivenAKey) {
  const std::string token = test::unsigned_token(header("none"), kPayload);
  jwt_t* decoded = nullptr;
  EXPECT_NE(jwt_decode(&decoded, token.c_str(), reinterpret_cast<const unsigned char*>(kSecret.data()),
                       static_cast<int>(kSecret.size())),
            0);
  jwt_free(decoded);
}

}  // namespace
}  // namespace sluice::auth
