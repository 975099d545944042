// The signature check on its own: each algorithm family verifies with the
// key's own algorithm and material, and nothing else verifies.
#include "auth/jwt_signature.hpp"

#include <gtest/gtest.h>

#include "proto/base64url.hpp"
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
  return key;
}

SignatureCheck check(const JwtKey& key, const std::string& token) {
  const std::size_t last = token.rfind('.');
  return check_signature(key, std::string_view(token).substr(0, last), std::string_view(token).substr(last + 1));
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

TEST(JwtSignature, UsesTheKeysAlgorithmNotTheTokens) {
  // The key is pinned to HS384 but the token was signed HS256: whatever let
  // it get this far, the check is HS384's and refuses it.
  JwtKey key = secret_key();
  key.alg = JwtAlg::hs384;
  EXPECT_EQ(check(key, test::hs256(header("HS256"), kPayload, kSecret)), SignatureCheck::invalid);
  // An HS256 token whose secret is the RSA public key's PEM, which anyone
  // may read, checked with that key: an RSA key verifies RS256 only.
  const std::string forged = test::hs256(header("HS256"), kPayload, pem_of(keys().rsa.get(), false));
  EXPECT_EQ(check(public_key(keys().rsa.get(), JwtAlg::rs256), forged), SignatureCheck::invalid);
}

// An ECDSA signature is r and s of the curve's size back to back: the DER
// form OpenSSL makes, or a pair cut or padded by a byte, is not one.
TEST(JwtSignature, AnEcdsaSignatureMustBeTheJwsPairOfTheCurvesSize) {
  const JwtKey key = public_key(keys().p256.get(), JwtAlg::es256);
  const std::string good = test::signed_with(keys().p256.get(), EVP_sha256(), header("ES256"), kPayload);
  ASSERT_EQ(check(key, good), SignatureCheck::valid);
  const std::string input = good.substr(0, good.rfind('.'));
  std::string raw;
  ASSERT_TRUE(proto::base64url_decode(std::string_view(good).substr(good.rfind('.') + 1), raw));
  EXPECT_EQ(check(key, input + "." + test::b64(raw.substr(1))), SignatureCheck::invalid);
  EXPECT_EQ(check(key, input + "." + test::b64(raw + '\0')), SignatureCheck::invalid);
  EXPECT_EQ(check(key, input + "." + test::b64(std::string(64, '\0'))), SignatureCheck::invalid);
}

// What the header says beyond its alg is not the signature's business: a
// token typed at+jwt (an OAuth access token) verifies like any other.
TEST(JwtSignature, ReadsNothingOfTheHeaderOrPayload) {
  const std::string typed = test::hs256(R"({"alg":"HS256","typ":"at+jwt"})", R"({"n":1e400,"s":"a\u0000b"})", kSecret);
  EXPECT_EQ(check(secret_key(), typed), SignatureCheck::valid);
}

}  // namespace
}  // namespace sluice::auth
