#include "auth/jwk.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using nlohmann::json;
using test::jwk_of;
using test::keys;

std::optional<std::string> read(const json& jwk, JwtKey& key) { return read_jwk(jwk, key); }

std::string refusal(const json& jwk) {
  JwtKey key;
  const auto why = read(jwk, key);
  return why ? *why : "<accepted>";
}

TEST(Jwk, ReadsEachPublicKeyTypeAndPinsItsAlg) {
  struct Case {
    EVP_PKEY* key;
    const char* alg;
    JwtAlg pinned;
  };
  for (const Case& c :
       {Case{keys().rsa.get(), "RS384", JwtAlg::rs384}, Case{keys().p256.get(), "ES256", JwtAlg::es256},
        Case{keys().p384.get(), "ES384", JwtAlg::es384}, Case{keys().ed25519.get(), "EdDSA", JwtAlg::eddsa}}) {
    JwtKey key;
    ASSERT_EQ(read(json::parse(jwk_of(c.key, c.alg, "k1")), key), std::nullopt) << c.alg;
    EXPECT_EQ(key.alg, c.pinned);
    EXPECT_EQ(key.kid, "k1");
    ASSERT_TRUE(key.public_key);
    EXPECT_EQ(EVP_PKEY_eq(key.public_key.get(), c.key), 1) << c.alg;
    EXPECT_TRUE(key.secret.empty());
  }
}

TEST(Jwk, ReadsASharedSecret) {
  JwtKey key;
  const json jwk = {{"kty", "oct"}, {"alg", "HS256"}, {"k", test::b64(std::string(32, 's'))}};
  ASSERT_EQ(read(jwk, key), std::nullopt);
  EXPECT_EQ(key.secret, std::string(32, 's'));
  EXPECT_EQ(refusal({{"kty", "oct"}, {"alg", "HS512"}, {"k", test::b64(std::string(32, 's'))}}),
            "HS512 needs a secret of at least 64 bytes");
}

TEST(Jwk, EveryKeyMustPinAnAlg) {
  json jwk = json::parse(jwk_of(keys().rsa.get(), "RS256", "a"));
  jwk.erase("alg");
  EXPECT_NE(refusal(jwk).find("alg"), std::string::npos);
  jwk["alg"] = "none";
  EXPECT_NE(refusal(jwk).find("alg"), std::string::npos);
}

TEST(Jwk, TheKeyTypeMustBeTheOneItsAlgNeeds) {
  EXPECT_EQ(refusal(json::parse(jwk_of(keys().rsa.get(), "ES256", "a"))), "ES256 needs kty \"EC\"");
  EXPECT_EQ(refusal(json::parse(jwk_of(keys().p256.get(), "HS256", "a"))), "HS256 needs kty \"oct\"");
  EXPECT_EQ(refusal(json::parse(jwk_of(keys().p384.get(), "ES256", "a"))),
            "its \"x\" and \"y\" are not the curve's size");
  json wrong_crv = json::parse(jwk_of(keys().p256.get(), "ES256", "a"));
  wrong_crv["crv"] = "P-384";
  EXPECT_EQ(refusal(wrong_crv), "ES256 needs crv P-256");
}

TEST(Jwk, RefusesPrivateMembersAndOtherPurposes) {
  json jwk = json::parse(jwk_of(keys().rsa.get(), "RS256", "a"));
  json with_d = jwk;
  with_d["d"] = "AQAB";
  EXPECT_NE(refusal(with_d).find("private"), std::string::npos);
  json enc = jwk;
  enc["use"] = "enc";
  EXPECT_NE(refusal(enc).find("use"), std::string::npos);
  json ops = jwk;
  ops["key_ops"] = {"encrypt"};
  EXPECT_NE(refusal(ops).find("key_ops"), std::string::npos);
  ops["key_ops"] = {"verify"};
  EXPECT_EQ(refusal(ops), "<accepted>");
}

TEST(Jwk, RefusesAPointOffTheCurve) {
  json jwk = json::parse(jwk_of(keys().p256.get(), "ES256", "a"));
  std::string x;
  ASSERT_TRUE(proto::base64url_decode(jwk["x"].get<std::string>(), x));
  x[31] = static_cast<char>(x[31] ^ 1);
  jwk["x"] = test::b64(x);
  EXPECT_NE(refusal(jwk).find("does not load"), std::string::npos) << refusal(jwk);
}

// The identity as an Ed25519 key: every token "signed" (R = the identity,
// S = 0) would verify against it.
TEST(Jwk, RefusesAnEd25519KeyOfSmallOrder) {
  std::string identity(32, '\0');
  identity[0] = 1;
  const json jwk = {{"kty", "OKP"}, {"crv", "Ed25519"}, {"alg", "EdDSA"}, {"x", test::b64(identity)}};
  EXPECT_NE(refusal(jwk).find("cannot stand for a signer"), std::string::npos) << refusal(jwk);
}

TEST(Jwk, RefusesMalformedMembers) {
  EXPECT_NE(refusal(json::array()).find("not a JSON object"), std::string::npos);
  json jwk = json::parse(jwk_of(keys().rsa.get(), "RS256", "a"));
  json bad_n = jwk;
  bad_n["n"] = "not base64url!";
  EXPECT_NE(refusal(bad_n).find("\"n\""), std::string::npos);
  json bad_kid = jwk;
  bad_kid["kid"] = 7;
  EXPECT_NE(refusal(bad_kid).find("kid"), std::string::npos);
}

}  // namespace
}  // namespace sluice::auth
