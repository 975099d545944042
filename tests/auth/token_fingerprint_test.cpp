#include "auth/token_fingerprint.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::auth {
namespace {

TEST(TokenFingerprint, TheSameTokenMatchesAndAnyChangeDoesNot) {
  const TokenFingerprinter fingerprints;
  const std::string token = "aaaa.bbbb.cccc";
  EXPECT_TRUE(same_token(fingerprints.of(token), fingerprints.of(std::string(token))));
  std::string changed = token;
  for (std::size_t i = 0; i < token.size(); ++i) {
    changed[i] ^= 1;
    EXPECT_FALSE(same_token(fingerprints.of(token), fingerprints.of(changed))) << i;
    changed[i] = token[i];
  }
  EXPECT_FALSE(same_token(fingerprints.of(token), fingerprints.of(token + "c")));
  EXPECT_FALSE(same_token(fingerprints.of(token), fingerprints.of(token.substr(1))));
}

TEST(TokenFingerprint, AnotherFingerprinterNeverMatches) {
  const TokenFingerprinter first;
  const TokenFingerprinter second;
  EXPECT_NE(first.of("t").verifier, second.of("t").verifier);
  EXPECT_FALSE(same_token(first.of("a.b.c"), second.of("a.b.c")));
}

TEST(TokenFingerprint, NoTokenMatchesNothing) {
  const TokenFingerprinter fingerprints;
  EXPECT_TRUE(TokenFingerprint{}.empty());
  EXPECT_FALSE(fingerprints.of("").empty());
  EXPECT_FALSE(same_token(TokenFingerprint{}, TokenFingerprint{}));
  EXPECT_FALSE(same_token(TokenFingerprint{}, fingerprints.of("a.b.c")));
}

}  // namespace
}  // namespace sluice::auth
