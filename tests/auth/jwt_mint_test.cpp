#include "auth/jwt_mint.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "auth/jwt_verifier.hpp"
#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using namespace std::chrono;
using test::keys;
using test::pem_of;

const std::string kSecret(40, 'q');
const system_clock::time_point kNow{seconds(1'700'000'000)};

TokenClaims claims() {
  TokenClaims c;
  c.subject = "alice";
  c.subscribe = {"news", "prices.*"};
  c.publish = {"prices.*"};
  c.issued_at = kNow;
  c.ttl = seconds(600);
  return c;
}

TEST(JwtMint, ClaimsCarryTimesSubjectAndGrants) {
  std::string json;
  TokenClaims c = claims();
  c.audience = "sluice.example";
  c.issuer = "issuer.example";
  ASSERT_EQ(claims_json(c, json), std::nullopt);
  EXPECT_EQ(nlohmann::json::parse(json),
            nlohmann::json::parse(R"({"iat":1700000000,"exp":1700000600,"sub":"alice","aud":"sluice.example",
              "iss":"issuer.example","sluice":{"subscribe":["news","prices.*"],"publish":["prices.*"]}})"));
}

TEST(JwtMint, RefusesPatternsSluiceWouldRefuse) {
  std::string json;
  TokenClaims c = claims();
  c.publish = {"news", "pri*ces"};
  EXPECT_EQ(claims_json(c, json), "--publish 'pri*ces' is not a topic name, a 'prefix.*' or '*'");
}

TEST(JwtMint, RefusesAShortSecretAndAPublicKey) {
  SigningKey key;
  EXPECT_EQ(signing_key_from_secret("short", key),
            "the secret must be at least 32 bytes (got 5); sluiced refuses shorter ones");
  EXPECT_NE(signing_key_from_pem(pem_of(keys().rsa.get(), false), key), std::nullopt);
}

TEST(JwtMint, TokensOfEachKindVerify) {
  struct Case {
    std::string pem;  // empty: the secret
    JwtAlg alg;
    EVP_PKEY* public_key;
  };
  for (const Case& c :
       {Case{"", JwtAlg::hs256, nullptr}, Case{pem_of(keys().rsa.get(), true), JwtAlg::rs256, keys().rsa.get()},
        Case{pem_of(keys().p256.get(), true), JwtAlg::es256, keys().p256.get()},
        Case{pem_of(keys().ed25519.get(), true), JwtAlg::eddsa, keys().ed25519.get()}}) {
    SigningKey key;
    ASSERT_EQ(c.pem.empty() ? signing_key_from_secret(kSecret, key) : signing_key_from_pem(c.pem, key), std::nullopt);
    EXPECT_EQ(key.alg, c.alg);
    key.kid = "k1";
    std::string token;
    ASSERT_EQ(mint_token(claims(), key, token), std::nullopt) << jwt_alg_name(c.alg);
    KeyRing ring;
    if (c.public_key == nullptr) {
      ASSERT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
    } else {
      ASSERT_EQ(ring.add_jwks("{\"keys\":[" + test::jwk_of(c.public_key, jwt_alg_name(c.alg), "k1") + "]}",
                              "auth.jwks_file", 64),
                std::nullopt);
    }
    const VerifiedToken verified = JwtVerifier(std::move(ring), {}).verify(token, kNow + seconds(1));
    ASSERT_TRUE(verified.check.ok()) << jwt_alg_name(c.alg) << ": " << verified.check.reason;
    EXPECT_EQ(verified.identity.subject, "alice");
    EXPECT_TRUE(verified.identity.publish.matches("prices.eur"));
    EXPECT_FALSE(verified.identity.publish.matches("news"));
  }
}

}  // namespace
}  // namespace sluice::auth
