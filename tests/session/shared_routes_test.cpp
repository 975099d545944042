#include "session/shared_routes.hpp"

#include <gtest/gtest.h>

namespace sluice::session {
namespace {

TEST(SharedRoutes, ADenialCarriesItsStatusReasonAndRetryAndEndsTheConnection) {
  ReplyText text;
  const Response slow = denial(AuthOutcome::of(server::AuthDecision::deny(429, "slow down", 7)), text);
  EXPECT_EQ(slow.status, 429);
  EXPECT_EQ(slow.body, "slow down\n");
  EXPECT_EQ(slow.extra_headers, "Retry-After: 7\r\n");
  EXPECT_FALSE(slow.keep_alive);

  const Response who = denial(AuthOutcome::of(server::AuthDecision::deny(401, "token expired")), text);
  EXPECT_EQ(who.status, 401);
  EXPECT_EQ(who.extra_headers, "WWW-Authenticate: Bearer\r\n");
}

TEST(SharedRoutes, TheLongestChallengeFitsWhole) {
  ReplyText text;
  const std::string challenge(server::AuthDecision::kMaxChallenge, 'c');
  const Response r =
      denial(AuthOutcome::of(server::AuthDecision::deny(401, "who").with_challenge(challenge)), text);
  EXPECT_EQ(r.extra_headers, "WWW-Authenticate: " + challenge + "\r\n");
}

TEST(SharedRoutes, AHubRefusalKeepsTheConnectionAndSaysWhenToRetry) {
  ReplyText text;
  const Response r = hub_refusal({503, "out of buffer memory, retry", "1"}, text);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "out of buffer memory, retry\n");
  EXPECT_EQ(r.extra_headers, "Retry-After: 1\r\n");
  EXPECT_TRUE(r.keep_alive);
  EXPECT_TRUE(hub_refusal({400, "bad topic", {}}, text).extra_headers.empty());
}

TEST(SharedRoutes, AMalformedRequestIsAnsweredWithItsStatusLine) {
  ReplyText text;
  const Response r = malformed(400, text);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "400 Bad Request\n");
  EXPECT_FALSE(r.keep_alive);
}

}  // namespace
}  // namespace sluice::session
