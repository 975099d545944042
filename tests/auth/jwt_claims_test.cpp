#include "auth/jwt_claims.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sluice::auth {
namespace {

using namespace std::chrono;
using nlohmann::json;

constexpr std::int64_t kNowS = 1'700'000'000;
const system_clock::time_point kNow{seconds(kNowS)};

TokenCheck check(const json& claims, const JwtRules& rules = {}, Identity* out = nullptr) {
  Identity scratch;
  return check_claims(claims.dump(), rules, kNow, out != nullptr ? *out : scratch);
}

TokenError error_of(const json& claims, const JwtRules& rules = {}) { return check(claims, rules).error; }

json valid() { return {{"exp", kNowS + 60}}; }

json with(json claims, const char* name, json value) {
  claims[name] = std::move(value);
  return claims;
}

TEST(JwtClaims, ReadsSubjectExpiryAndGrants) {
  Identity id;
  const json claims = {{"sub", "alice"},
                       {"exp", kNowS + 60},
                       {"sluice", {{"subscribe", {"news", "prices.*"}}, {"publish", {"prices.*"}}}}};
  ASSERT_TRUE(check(claims, {}, &id).ok());
  EXPECT_EQ(id.subject, "alice");
  EXPECT_EQ(id.expires, system_clock::time_point(seconds(kNowS + 60)));
  EXPECT_TRUE(id.subscribe.matches("news"));
  EXPECT_TRUE(id.subscribe.matches("prices.eur"));
  EXPECT_FALSE(id.publish.matches("news"));
  EXPECT_TRUE(id.publish.matches("prices.eur"));
}

TEST(JwtClaims, TheGrantsClaimNameIsConfigurable) {
  JwtRules rules;
  rules.claim = "mercure";
  Identity id;
  ASSERT_TRUE(check(with(valid(), "mercure", {{"subscribe", {"*"}}}), rules, &id).ok());
  EXPECT_TRUE(id.subscribe.matches("anything"));
  Identity none;
  ASSERT_TRUE(check(with(valid(), "sluice", {{"subscribe", {"*"}}}), rules, &none).ok());
  EXPECT_TRUE(none.subscribe.empty());
}

TEST(JwtClaims, ExpiryHonoursTheSkewToTheMillisecond) {
  JwtRules rules;
  rules.clock_skew = milliseconds(1001);
  EXPECT_EQ(error_of({{"exp", kNowS - 1}}, rules), TokenError::none);  // 1 s late, within the skew
  rules.clock_skew = milliseconds(1000);
  EXPECT_EQ(error_of({{"exp", kNowS - 1}}, rules), TokenError::expired);  // exactly at its edge
  rules.clock_skew = milliseconds(0);
  EXPECT_EQ(error_of({{"exp", kNowS}}, rules), TokenError::expired);
  EXPECT_EQ(error_of({{"exp", kNowS + 0.5}}, rules), TokenError::none);  // fractions count
}

TEST(JwtClaims, NotBeforeAndIssuedAtHonourTheSkew) {
  JwtRules rules;
  rules.clock_skew = seconds(30);
  EXPECT_EQ(error_of(with(valid(), "nbf", kNowS + 30), rules), TokenError::none);
  EXPECT_EQ(error_of(with(valid(), "nbf", kNowS + 31), rules), TokenError::not_yet_valid);
  EXPECT_EQ(error_of(with(valid(), "iat", kNowS + 30), rules), TokenError::none);
  EXPECT_EQ(error_of(with(valid(), "iat", kNowS + 31), rules), TokenError::issued_in_future);
  EXPECT_EQ(error_of(with(valid(), "iat", kNowS - 86400), rules), TokenError::none);
}

TEST(JwtClaims, ExpIsRequiredUnlessConfiguredOtherwise) {
  EXPECT_EQ(error_of({{"sub", "a"}}), TokenError::missing_exp);
  JwtRules rules;
  rules.require_exp = false;
  Identity id;
  ASSERT_TRUE(check({{"sub", "a"}}, rules, &id).ok());
  EXPECT_FALSE(id.expires);
}

TEST(JwtClaims, TimeClaimsMustBeNumbers) {
  EXPECT_EQ(error_of({{"exp", "tomorrow"}}), TokenError::bad_claim);
  EXPECT_EQ(error_of(with(valid(), "nbf", json::array())), TokenError::bad_claim);
  EXPECT_EQ(error_of(with(valid(), "iat", nullptr)), TokenError::bad_claim);
  // Absurd dates are clamped, not overflowed.
  EXPECT_EQ(error_of({{"exp", 1e300}}), TokenError::none);
  EXPECT_EQ(error_of({{"exp", -1e300}}), TokenError::expired);
}

TEST(JwtClaims, AudienceFollowsRfc7519) {
  JwtRules rules;
  EXPECT_EQ(error_of(valid(), rules), TokenError::none);
  EXPECT_EQ(error_of(with(valid(), "aud", "other"), rules), TokenError::wrong_audience);  // names one, we have none
  rules.audience = "sluice.example";
  EXPECT_EQ(error_of(valid(), rules), TokenError::wrong_audience);
  EXPECT_EQ(error_of(with(valid(), "aud", "sluice.example"), rules), TokenError::none);
  EXPECT_EQ(error_of(with(valid(), "aud", {"a", "sluice.example"}), rules), TokenError::none);
  EXPECT_EQ(error_of(with(valid(), "aud", {"a", "b"}), rules), TokenError::wrong_audience);
  EXPECT_EQ(error_of(with(valid(), "aud", 7), rules), TokenError::wrong_audience);
}

TEST(JwtClaims, IssuerMustMatchWhenConfigured) {
  JwtRules rules;
  EXPECT_EQ(error_of(with(valid(), "iss", "anyone"), rules), TokenError::none);
  rules.issuer = "https://issuer.example";
  EXPECT_EQ(error_of(valid(), rules), TokenError::wrong_issuer);
  EXPECT_EQ(error_of(with(valid(), "iss", "https://other.example"), rules), TokenError::wrong_issuer);
  EXPECT_EQ(error_of(with(valid(), "iss", "https://issuer.example"), rules), TokenError::none);
}

TEST(JwtClaims, ClaimCountIsBoundedAndTheErrorSaysWhich) {
  JwtRules rules;
  rules.max_claims = 3;
  json claims = valid();
  claims["a"] = 1;
  claims["b"] = 2;
  EXPECT_TRUE(check(claims, rules).ok());
  claims["c"] = 3;
  const TokenCheck result = check(claims, rules);
  EXPECT_EQ(result.error, TokenError::too_many_claims);
  EXPECT_EQ(result.reason, "payload has 4 claims, more than auth.max_claims (3)");
}

TEST(JwtClaims, PatternCountIsBoundedPerListAndTheErrorSaysWhich) {
  JwtRules rules;
  rules.max_patterns = 2;
  EXPECT_TRUE(check(with(valid(), "sluice", {{"subscribe", {"a", "b"}}, {"publish", {"c", "d"}}}), rules).ok());
  const TokenCheck result = check(with(valid(), "sluice", {{"publish", {"a", "b", "c"}}}), rules);
  EXPECT_EQ(result.error, TokenError::too_many_patterns);
  EXPECT_EQ(result.reason, "claim sluice.publish lists 3 patterns, more than auth.max_patterns (2)");
}

TEST(JwtClaims, GrantsMustBeWellFormed) {
  EXPECT_EQ(error_of(with(valid(), "sluice", "everything")), TokenError::bad_claim);
  EXPECT_EQ(error_of(with(valid(), "sluice", {{"subscribe", "news"}})), TokenError::bad_claim);
  EXPECT_EQ(error_of(with(valid(), "sluice", {{"subscribe", {"news", 7}}})), TokenError::bad_claim);
  const TokenCheck bad = check(with(valid(), "sluice", {{"subscribe", {"news", "ne*ws"}}}));
  EXPECT_EQ(bad.error, TokenError::bad_claim);
  EXPECT_EQ(bad.reason, "claim sluice.subscribe: entry 1 is not a topic name, a 'prefix.*' or '*'");
  EXPECT_EQ(error_of(with(valid(), "sub", 42)), TokenError::bad_claim);
}

TEST(JwtClaims, PayloadMustBeAnObject) {
  Identity id;
  EXPECT_EQ(check_claims("[1,2]", {}, kNow, id).error, TokenError::malformed);
  EXPECT_EQ(check_claims("{\"exp\":", {}, kNow, id).error, TokenError::malformed);
  EXPECT_EQ(check_claims("", {}, kNow, id).error, TokenError::malformed);
}

// A token reused later is judged by its time claims again, at the later
// time, with the same boundaries and reasons as when it was first read.
TEST(JwtClaims, TimeClaimsJudgedAgainAnswerAsTheFirstCheckWould) {
  JwtRules rules;
  rules.clock_skew = milliseconds(1000);
  Identity id;
  ASSERT_TRUE(check({{"exp", kNowS + 60}, {"nbf", kNowS}, {"iat", kNowS}}, rules, &id).ok());
  EXPECT_EQ(id.not_before, system_clock::time_point(seconds(kNowS)));
  EXPECT_EQ(id.issued_at, system_clock::time_point(seconds(kNowS)));
  EXPECT_TRUE(check_token_times(id, rules, kNow + seconds(60)).ok()) << "within the skew past exp";
  const TokenCheck expired = check_token_times(id, rules, kNow + seconds(61));
  EXPECT_EQ(expired.error, TokenError::expired);
  EXPECT_EQ(expired.reason, "token expired");
  // The clock went back: before nbf, iat in the future.
  EXPECT_EQ(check_token_times(id, rules, kNow - seconds(2)).error, TokenError::not_yet_valid);
  Identity issued_only;
  ASSERT_TRUE(check({{"exp", kNowS + 60}, {"iat", kNowS}}, rules, &issued_only).ok());
  EXPECT_EQ(check_token_times(issued_only, rules, kNow - seconds(2)).error, TokenError::issued_in_future);
  // Each boundary where check_claims puts it.
  for (const auto& at : {kNow + milliseconds(60'999), kNow + milliseconds(61'000), kNow - milliseconds(1000),
                         kNow - milliseconds(1001)}) {
    Identity fresh;
    const TokenCheck first = check_claims(json{{"exp", kNowS + 60}, {"nbf", kNowS}}.dump(), rules, at, fresh);
    EXPECT_EQ(check_token_times(id, rules, at).error, first.error);
  }
}

}  // namespace
}  // namespace sluice::auth
