#include "auth/decision.hpp"

#include <gtest/gtest.h>

namespace sluice::auth {
namespace {

TEST(Decision, EachVerdictHasItsStatusAndCloseCode) {
  EXPECT_EQ(http_status(Verdict::allow), 200);
  EXPECT_EQ(http_status(Verdict::unauthenticated), 401);
  EXPECT_EQ(http_status(Verdict::forbidden), 403);
  EXPECT_EQ(http_status(Verdict::too_many), 429);
  EXPECT_EQ(http_status(Verdict::unavailable), 503);
  EXPECT_EQ(ws_close_code(Verdict::unauthenticated), 4401);
  EXPECT_EQ(ws_close_code(Verdict::forbidden), 4403);
  EXPECT_EQ(ws_close_code(Verdict::too_many), 4429);
  EXPECT_EQ(ws_close_code(Verdict::unavailable), 1013);
}

TEST(Decision, RetryAfterIsAtLeastOneSecond) {
  EXPECT_EQ(Decision::over_limit("x", 0).retry_after_s, 1u);
  EXPECT_EQ(Decision::over_limit("x", 7).retry_after_s, 7u);
  EXPECT_EQ(Decision::callback_failed("x", 0).retry_after_s, 1u);
  EXPECT_EQ(Decision::over_limit("x", 7).verdict, Verdict::too_many);
}

TEST(Decision, ChallengeWithoutATokenCarriesNoError) {
  // RFC 6750 §3.1: a request with no credentials gets no error code.
  const Decision d = Decision::missing_token("a token is needed");
  EXPECT_EQ(www_authenticate(d, "sluice"), "Bearer realm=\"sluice\"");
}

TEST(Decision, ChallengeForARefusedTokenSaysInvalidToken) {
  const Decision d = Decision::invalid_token("token expired");
  EXPECT_EQ(www_authenticate(d, "sluice"),
            "Bearer realm=\"sluice\", error=\"invalid_token\", error_description=\"token expired\"");
}

TEST(Decision, ChallengeCannotBeBrokenOutOfItsQuotes) {
  const Decision d = Decision::invalid_token("a \"quoted\"\\ reason\r\nX-Injected: 1");
  const std::string header = www_authenticate(d, "r\"ealm");
  EXPECT_EQ(header.find('\r'), std::string::npos);
  EXPECT_EQ(header.find('\n'), std::string::npos);
  EXPECT_EQ(header,
            "Bearer realm=\"r?ealm\", error=\"invalid_token\", "
            "error_description=\"a ?quoted?? reason??X-Injected: 1\"");
}

}  // namespace
}  // namespace sluice::auth
