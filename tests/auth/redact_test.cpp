#include "auth/redact.hpp"

#include <gtest/gtest.h>

namespace sluice::auth {
namespace {

constexpr std::string_view kJwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl";

std::string r(std::string_view text) { return redact(text, "sluice_token"); }

TEST(Redact, CutsTheTokenQueryParameter) {
  EXPECT_EQ(r("GET /sse/news?token=abc&x=1 HTTP/1.1"), "GET /sse/news?token=[redacted]&x=1 HTTP/1.1");
  EXPECT_EQ(r("/ws?access_token=abc"), "/ws?access_token=[redacted]");
  EXPECT_EQ(r("/sse?authorization=abc"), "/sse?authorization=[redacted]");
  EXPECT_EQ(r("/sse?mytoken=abc"), "/sse?mytoken=abc");  // another parameter
}

TEST(Redact, CutsCredentialHeaderLinesWhole) {
  EXPECT_EQ(r("Authorization: Bearer abc def\r\nHost: x\r\n"), "Authorization: [redacted]\r\nHost: x\r\n");
  EXPECT_EQ(r("authorization:Basic dXNlcg==\n"), "authorization:[redacted]\n");
  EXPECT_EQ(r("Proxy-Authorization: x"), "Proxy-Authorization: [redacted]");
  EXPECT_EQ(r("Cookie: session=s3cret; theme=dark\r\n"), "Cookie: [redacted]\r\n");
}

TEST(Redact, CutsBearerCredentialsAndTheTokenCookieInFreeText) {
  EXPECT_EQ(r("refused Bearer abc123 from 10.0.0.1"), "refused Bearer [redacted] from 10.0.0.1");
  EXPECT_EQ(r("cookies: theme=dark; sluice_token=abc; a=b"), "cookies: theme=dark; sluice_token=[redacted]; a=b");
}

TEST(Redact, CutsAnythingShapedLikeAJwt) {
  const std::string text = "saw " + std::string(kJwt) + ", refused";
  EXPECT_EQ(r(text), "saw [redacted], refused");
  EXPECT_EQ(r("/sse/" + std::string(kJwt)), "/sse/[redacted]");
  EXPECT_EQ(r("eyJ not a token"), "eyJ not a token");
  EXPECT_EQ(r("keyJ.a.b"), "keyJ.a.b");
}

TEST(Redact, LeavesOrdinaryTextAlone) {
  const std::string text = "GET /sse/news?topic=a HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n";
  EXPECT_EQ(r(text), text);
  EXPECT_EQ(r(""), "");
}

TEST(Redact, NoTokenSurvivesInAnyOfItsPlaces) {
  const std::string token(kJwt);
  for (const std::string& text :
       {"GET /x?token=" + token, "Authorization: Bearer " + token, "Cookie: sluice_token=" + token,
        "x sluice_token=" + token, "Bearer " + token, token, "\"" + token + "\"", "a=" + token + "&b=1"}) {
    const std::string out = r(text);
    EXPECT_EQ(out.find("c2lnbmF0dXJl"), std::string::npos) << out;
    EXPECT_NE(out.find(kRedacted), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace sluice::auth
