#include "auth/jwt_verifier.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using namespace std::chrono;
using test::keys;
using test::pem_of;

constexpr std::int64_t kNowS = 1'700'000'000;
const system_clock::time_point kNow{seconds(kNowS)};
const std::string kSecret = "a shared secret of at least 32 bytes";

const std::string kPayload =
    nlohmann::json{
        {"sub", "alice"}, {"exp", kNowS + 600}, {"sluice", {{"subscribe", {"news"}}, {"publish", {"prices.*"}}}}}
        .dump();

std::string header(std::string_view alg, std::string_view kid = "") {
  nlohmann::json h = {{"alg", alg}, {"typ", "JWT"}};
  if (!kid.empty()) h["kid"] = kid;
  return h.dump();
}

KeyRing ring_with_secret() {
  KeyRing ring;
  EXPECT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
  return ring;
}

KeyRing ring_with_public(EVP_PKEY* key) {
  KeyRing ring;
  EXPECT_EQ(ring.add_public_pem(pem_of(key, false), "auth.jwt_public_key_file"), std::nullopt);
  return ring;
}

KeyRing ring_with_jwks(std::string_view json) {
  KeyRing ring;
  EXPECT_EQ(ring.add_jwks(json, "auth.jwks_file", 64), std::nullopt);
  return ring;
}

TokenError error_of(const JwtVerifier& verifier, const std::string& token) {
  const VerifiedToken result = verifier.verify(token, kNow);
  // Whatever the outcome, the reason never repeats the token or its signature.
  const std::string signature = token.substr(token.rfind('.') + 1);
  if (signature.size() >= 4) {
    EXPECT_EQ(result.check.reason.find(signature), std::string::npos) << result.check.reason;
  }
  if (!token.empty()) {
    EXPECT_EQ(result.check.reason.find(token), std::string::npos) << result.check.reason;
  }
  return result.check.error;
}

TEST(JwtVerifier, AcceptsAnHs256TokenAndReadsItsIdentity) {
  const JwtVerifier verifier(ring_with_secret(), {});
  const VerifiedToken result = verifier.verify(test::hs256(header("HS256"), kPayload, kSecret), kNow);
  ASSERT_TRUE(result.check.ok()) << result.check.reason;
  EXPECT_EQ(result.identity.subject, "alice");
  EXPECT_TRUE(result.identity.subscribe.matches("news"));
  EXPECT_TRUE(result.identity.publish.matches("prices.eur"));
  EXPECT_EQ(result.identity.expires, system_clock::time_point(seconds(kNowS + 600)));
}

// An OAuth access token (typ at+jwt) is taken like a plain JWT; a token of
// another kind signed by the same key is not.
TEST(JwtVerifier, TakesTokensTypedJwtOrAtJwtOnly) {
  const JwtVerifier verifier(ring_with_secret(), {});
  const auto typed = [](const std::string& typ) { return R"({"alg":"HS256","typ":)" + typ + "}"; };
  for (const char* typ :
       {R"("JWT")", R"("jwt")", R"("at+jwt")", R"("application/at+jwt")", R"("Application/AT+JWT")"}) {
    const VerifiedToken result = verifier.verify(test::hs256(typed(typ), kPayload, kSecret), kNow);
    EXPECT_TRUE(result.check.ok()) << typ << ": " << result.check.reason;
  }
  for (const char* typ : {R"("logout+jwt")", R"("JOSE")", R"("")", R"("application/")", "1"}) {
    const VerifiedToken result = verifier.verify(test::hs256(typed(typ), kPayload, kSecret), kNow);
    EXPECT_EQ(result.check.error, TokenError::malformed) << typ;
    EXPECT_EQ(result.check.reason, "header typ is not JWT or at+jwt") << typ;
  }
}

TEST(JwtVerifier, AcceptsRs256Es256AndEdDsaWithTheirPublicKeys) {
  struct Case {
    EVP_PKEY* key;
    const EVP_MD* md;
    const char* alg;
  };
  for (const Case& c : {Case{keys().rsa.get(), EVP_sha256(), "RS256"}, Case{keys().p256.get(), EVP_sha256(), "ES256"},
                        Case{keys().p384.get(), EVP_sha384(), "ES384"}, Case{keys().ed25519.get(), nullptr, "EdDSA"}}) {
    const JwtVerifier verifier(ring_with_public(c.key), {});
    const VerifiedToken result = verifier.verify(test::signed_with(c.key, c.md, header(c.alg), kPayload), kNow);
    EXPECT_TRUE(result.check.ok()) << c.alg << ": " << result.check.reason;
    EXPECT_EQ(result.identity.subject, "alice") << c.alg;
  }
}

TEST(JwtVerifier, Rfc7515HmacExample) {
  // RFC 7515 Appendix A.1: the key as a JWK, the token byte for byte (its
  // header and payload hold CRLFs), valid until 1300819380.
  JwtRules rules;
  rules.clock_skew = milliseconds(0);
  const JwtVerifier verifier(
      ring_with_jwks(
          R"({"keys":[{"kty":"oct","alg":"HS256","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}]})"),
      rules);
  const std::string token =
      "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxl"
      "LmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  EXPECT_TRUE(verifier.verify(token, system_clock::time_point(seconds(1300819379))).check.ok());
  EXPECT_EQ(verifier.verify(token, system_clock::time_point(seconds(1300819380))).check.error, TokenError::expired);
}

TEST(JwtVerifier, Rfc8037Ed25519Example) {
  // RFC 8037 Appendix A.4. Its payload is plain text, not claims: the
  // signature verifies and the claims are then refused; one flipped bit
  // and it is the signature that fails.
  const JwtVerifier verifier(
      ring_with_jwks(
          R"({"keys":[{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})"),
      {});
  std::string token =
      "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-"
      "09PGcvMg3AIbQR6dWbhijcNR4ki4"
      "iylGjg5BhVsPt9g7sVvpAr_MuM0KAg";
  const VerifiedToken result = verifier.verify(token, kNow);
  EXPECT_EQ(result.check.error, TokenError::malformed);
  EXPECT_EQ(result.check.reason, "payload is not a JSON object");
  token[token.size() - 10] = token[token.size() - 10] == 'A' ? 'B' : 'A';
  EXPECT_EQ(verifier.verify(token, kNow).check.error, TokenError::bad_signature);
}

TEST(JwtVerifier, RefusesAlgNoneInAnySpellingWithOrWithoutASignature) {
  const JwtVerifier verifier(ring_with_secret(), {});
  for (const char* alg : {"none", "None", "NONE", "nOnE"}) {
    EXPECT_EQ(error_of(verifier, test::unsigned_token(header(alg), kPayload)), TokenError::alg_none) << alg;
    EXPECT_EQ(error_of(verifier, test::unsigned_token(header(alg), kPayload) + "c2ln"), TokenError::alg_none) << alg;
  }
}

TEST(JwtVerifier, RefusesAlgorithmConfusion) {
  // The classic forgery: HS256 keyed with the server's public RSA key.
  const std::string pem = pem_of(keys().rsa.get(), false);
  const std::string forged = test::hs256(header("HS256"), kPayload, pem);
  const JwtVerifier rsa_only(ring_with_public(keys().rsa.get()), {});
  const VerifiedToken result = rsa_only.verify(forged, kNow);
  EXPECT_EQ(result.check.error, TokenError::alg_mismatch);
  EXPECT_EQ(result.check.reason, "token alg HS256 is not the key's (RS256)");
  // Also when the forger names the RSA key's kid, next to a real HS256 key.
  KeyRing both = ring_with_secret();
  ASSERT_EQ(both.add_jwks("{\"keys\":[" + test::jwk_of(keys().rsa.get(), "RS256", "rsa1") + "]}", "auth.jwks_file", 64),
            std::nullopt);
  const JwtVerifier mixed(std::move(both), {});
  EXPECT_EQ(error_of(mixed, test::hs256(header("HS256", "rsa1"), kPayload, pem)),
            TokenError::alg_mismatch);
  // A kid no key has falls back to the keys without one: the reason names
  // their algorithms, not the JWKS key's, which that token cannot reach.
  const VerifiedToken unknown_kid =
      mixed.verify(test::signed_with(keys().rsa.get(), EVP_sha256(), header("RS256", "zzz"), kPayload), kNow);
  EXPECT_EQ(unknown_kid.check.reason, "token alg RS256 is not the key's (HS256)");
  // An RS256 token signed by the attacker's own key, pointed at the HS256 secret's slot.
  EXPECT_EQ(error_of(mixed, test::signed_with(keys().rsa_other.get(), EVP_sha256(), header("RS256"), kPayload)),
            TokenError::bad_signature);
}

TEST(JwtVerifier, RefusesATokenForAnotherKeyType) {
  const JwtVerifier rsa_only(ring_with_public(keys().rsa.get()), {});
  EXPECT_EQ(error_of(rsa_only, test::signed_with(keys().p256.get(), EVP_sha256(), header("ES256"), kPayload)),
            TokenError::alg_mismatch);
  EXPECT_EQ(error_of(rsa_only, test::signed_with(keys().ed25519.get(), nullptr, header("EdDSA"), kPayload)),
            TokenError::alg_mismatch);
  const JwtVerifier p384_only(ring_with_public(keys().p384.get()), {});
  EXPECT_EQ(error_of(p384_only, test::signed_with(keys().p256.get(), EVP_sha256(), header("ES256"), kPayload)),
            TokenError::alg_mismatch);
}

TEST(JwtVerifier, RefusesBadSignatures) {
  const JwtVerifier verifier(ring_with_secret(), {});
  EXPECT_EQ(error_of(verifier, test::hs256(header("HS256"), kPayload, "another secret, also 32 bytes long")),
            TokenError::bad_signature);
  const std::string good = test::hs256(header("HS256"), kPayload, kSecret);
  const std::string other_payload = test::signing_input(header("HS256"), R"({"sub":"mallory","exp":1800000000})");
  EXPECT_EQ(error_of(verifier, other_payload + good.substr(good.rfind('.'))), TokenError::bad_signature);
  EXPECT_EQ(error_of(verifier, good.substr(0, good.rfind('.') + 1)), TokenError::bad_signature);
  EXPECT_EQ(error_of(verifier, good.substr(0, good.size() - 2)), TokenError::bad_signature);
}

TEST(JwtVerifier, RefusesWhatIsNotAToken) {
  const JwtVerifier verifier(ring_with_secret(), {});
  const std::string h = test::b64(header("HS256"));
  const std::string p = test::b64(kPayload);
  for (const std::string& bad :
       {std::string(), std::string("abc"), h + "." + p, h + "." + p + ".c2ln.c2ln", "." + p + ".c2ln", h + "..c2ln",
        "!!!." + p + ".c2ln", test::b64("[1]") + "." + p + ".x", test::b64("{\"typ\":\"JWT\"}") + "." + p + ".x",
        test::b64("{\"alg\":7}") + "." + p + ".x", test::b64("not json") + "." + p + ".x"}) {
    EXPECT_EQ(error_of(verifier, bad), TokenError::malformed) << bad;
  }
}

TEST(JwtVerifier, RefusesCriticalHeaderExtensions) {
  const JwtVerifier verifier(ring_with_secret(), {});
  const std::string token = test::hs256(R"({"alg":"HS256","b64":false,"crit":["b64"]})", kPayload, kSecret);
  const VerifiedToken result = verifier.verify(token, kNow);
  EXPECT_EQ(result.check.error, TokenError::malformed);
  EXPECT_NE(result.check.reason.find("crit"), std::string::npos);
}

TEST(JwtVerifier, RefusesUnsupportedAlgsWithoutEchoingOddOnes) {
  const JwtVerifier verifier(ring_with_secret(), {});
  const VerifiedToken ps = verifier.verify(test::hs256(header("PS256"), kPayload, kSecret), kNow);
  EXPECT_EQ(ps.check.error, TokenError::alg_unsupported);
  EXPECT_EQ(ps.check.reason, "alg PS256 is not supported");
  const VerifiedToken odd = verifier.verify(test::hs256(header("HS256\r\nX: y"), kPayload, kSecret), kNow);
  EXPECT_EQ(odd.check.error, TokenError::alg_unsupported);
  EXPECT_EQ(odd.check.reason, "its alg is not supported");
  EXPECT_EQ(error_of(verifier, test::hs256(header("hs256"), kPayload, kSecret)), TokenError::alg_unsupported);
}

TEST(JwtVerifier, TheKidPicksTheKey) {
  const std::string set = "{\"keys\":[" + test::jwk_of(keys().rsa.get(), "RS256", "old") + "," +
                          test::jwk_of(keys().rsa_other.get(), "RS256", "new") + "]}";
  const JwtVerifier verifier(ring_with_jwks(set), {});
  const std::string by_new = test::signed_with(keys().rsa_other.get(), EVP_sha256(), header("RS256", "new"), kPayload);
  EXPECT_EQ(error_of(verifier, by_new), TokenError::none);
  const std::string wrong_kid =
      test::signed_with(keys().rsa_other.get(), EVP_sha256(), header("RS256", "old"), kPayload);
  EXPECT_EQ(error_of(verifier, wrong_kid), TokenError::bad_signature);
  const std::string no_kid = test::signed_with(keys().rsa_other.get(), EVP_sha256(), header("RS256"), kPayload);
  EXPECT_EQ(error_of(verifier, no_kid), TokenError::ambiguous_key);
  const std::string unknown = test::signed_with(keys().rsa_other.get(), EVP_sha256(), header("RS256", "x"), kPayload);
  EXPECT_EQ(error_of(verifier, unknown), TokenError::unknown_kid);
  EXPECT_EQ(error_of(verifier, test::hs256(R"({"alg":"HS256","kid":""})", kPayload, kSecret)), TokenError::malformed);
}

TEST(JwtVerifier, TokenLengthIsBoundedBeforeAnyParsing) {
  JwtRules rules;
  rules.max_token_bytes = 300;
  const JwtVerifier verifier(ring_with_secret(), rules);
  const VerifiedToken result = verifier.verify(std::string(301, 'A'), kNow);
  EXPECT_EQ(result.check.error, TokenError::too_long);
  EXPECT_EQ(result.check.reason, "token is 301 bytes, more than auth.max_token_bytes (300)");
  const std::string fits = test::hs256(header("HS256"), R"({"exp":1800000000})", kSecret);
  ASSERT_LE(fits.size(), 300u);
  EXPECT_EQ(error_of(verifier, fits), TokenError::none);
}

TEST(JwtVerifier, ClaimsAreCheckedOnlyAfterTheSignature) {
  // An expired token with a bad signature is a bad signature: nothing in an
  // unsigned payload is read.
  const JwtVerifier verifier(ring_with_secret(), {});
  const std::string expired = test::hs256(header("HS256"), R"({"exp":1})", "another secret, also 32 bytes long");
  EXPECT_EQ(error_of(verifier, expired), TokenError::bad_signature);
  EXPECT_EQ(error_of(verifier, test::hs256(header("HS256"), R"({"exp":1})", kSecret)), TokenError::expired);
}

TEST(JwtVerifier, AnEmptyRingRefusesEverything) {
  const JwtVerifier verifier(KeyRing{}, {});
  EXPECT_EQ(error_of(verifier, test::hs256(header("HS256"), kPayload, kSecret)), TokenError::alg_mismatch);
}

}  // namespace
}  // namespace sluice::auth
