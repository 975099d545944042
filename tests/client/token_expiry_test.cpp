#include "token_expiry.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::client::detail {
namespace {

// base64url of `json`, unpadded.
std::string b64url(const std::string& json) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t bits = 0;
  int held = 0;
  for (const unsigned char c : json) {
    bits = (bits << 8) | c;
    held += 8;
    while (held >= 6) {
      held -= 6;
      out.push_back(kAlphabet[(bits >> held) & 63]);
    }
  }
  if (held > 0) out.push_back(kAlphabet[(bits << (6 - held)) & 63]);
  return out;
}

std::string jwt(const std::string& payload) { return b64url(R"({"alg":"HS256"})") + "." + b64url(payload) + ".sig"; }

TEST(TokenExpiry, ReadsTheExpClaimOfAJwt) {
  EXPECT_EQ(token_expiry(jwt(R"({"sub":"a","exp":1767225600,"iat":1})")), 1767225600);
  EXPECT_EQ(token_expiry(jwt(R"({"exp" : 42})")), 42);
  // Every length of payload, so every padding-free ending is decoded.
  for (std::string pad; pad.size() < 4; pad.push_back('x')) {
    EXPECT_EQ(token_expiry(jwt(R"({"p":")" + pad + R"(","exp":7})")), 7) << pad;
  }
}

TEST(TokenExpiry, ATokenWithoutAReadableExpHasNone) {
  EXPECT_EQ(token_expiry(jwt(R"({"sub":"a"})")), std::nullopt);
  EXPECT_EQ(token_expiry(jwt(R"({"exp":"soon"})")), std::nullopt);
  EXPECT_EQ(token_expiry("opaque-session-token"), std::nullopt);
  EXPECT_EQ(token_expiry("a.b"), std::nullopt);
  EXPECT_EQ(token_expiry("e30.!!!.sig"), std::nullopt);
  EXPECT_EQ(token_expiry(""), std::nullopt);
}

}  // namespace
}  // namespace sluice::client::detail
