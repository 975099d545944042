#include "sluice/authorization.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::server {
namespace {

TEST(AuthDecision, AllowIsNotARefusal) {
  const AuthDecision d = AuthDecision::allow();
  EXPECT_TRUE(d.allowed());
  EXPECT_EQ(d.status(), 0);
  EXPECT_TRUE(d.reason().empty());
}

TEST(AuthDecision, OnlyTheRefusalsAClientCanActOnAreKept) {
  EXPECT_EQ(AuthDecision::deny(401, "who").status(), 401);
  EXPECT_EQ(AuthDecision::deny(403, "no").status(), 403);
  EXPECT_EQ(AuthDecision::deny(429, "later", 5).status(), 429);
  EXPECT_EQ(AuthDecision::deny(503, "authority down", 1).status(), 503);
  for (const int other : {0, 200, 302, 404, 500, 502, -1}) {
    const AuthDecision d = AuthDecision::deny(other, "x");
    EXPECT_FALSE(d.allowed()) << other;
    EXPECT_EQ(d.status(), 403) << other;
  }
}

TEST(AuthDecision, RetryAfterGoesWithA429OrA503Only) {
  EXPECT_EQ(AuthDecision::deny(429, "later", 5).retry_after(), 5u);
  EXPECT_EQ(AuthDecision::deny(503, "later", 2).retry_after(), 2u);
  EXPECT_EQ(AuthDecision::deny(403, "no", 5).retry_after(), 0u);
}

TEST(AuthDecision, TheReasonIsOneShortLineOfPrintableAscii) {
  EXPECT_EQ(AuthDecision::deny(403, "a\r\nb\tc\x7f\xc3\xa9").reason(), "a??b?c???");
  EXPECT_EQ(AuthDecision::deny(403, std::string(500, 'r')).reason(), std::string(AuthDecision::kMaxReason, 'r'));
}

TEST(AuthDecision, AChallengeGoesWithA401AndIsOneLine) {
  EXPECT_EQ(AuthDecision::deny(401, "who").with_challenge("Bearer realm=\"app\"\r\nX: y").challenge(),
            "Bearer realm=\"app\"??X: y");
  EXPECT_EQ(AuthDecision::deny(403, "no").with_challenge("Bearer").challenge(), "");
}

TEST(Headers, FindTheFirstValueWhateverTheCase) {
  const HeaderField fields[] = {{"Host", "x"}, {"authorization", "Bearer 1"}, {"Authorization", "Bearer 2"}};
  const Headers headers(fields);
  EXPECT_EQ(headers.get("AUTHORIZATION"), "Bearer 1");
  EXPECT_EQ(headers.get("host"), "x");
  EXPECT_EQ(headers.get("Cookie"), "");
  EXPECT_EQ(headers.get("Hos"), "");
  EXPECT_EQ(headers.fields().size(), 3u);
  EXPECT_EQ(Headers().get("Host"), "");
}

TEST(AuthDecision, AChallengeHasRoomForAWholeReasonAndIsCutAtItsOwnLimit) {
  const std::string described = "Bearer realm=\"sluice\", error=\"invalid_token\", error_description=\"" +
                                std::string(AuthDecision::kMaxReason, 'r') + "\"";
  EXPECT_EQ(AuthDecision::deny(401, "x").with_challenge(described).challenge(), described);
  EXPECT_EQ(AuthDecision::deny(401, "x").with_challenge(std::string(1000, 'c')).challenge().size(),
            AuthDecision::kMaxChallenge);
}

}  // namespace
}  // namespace sluice::server
