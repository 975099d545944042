#include "session/origin_check.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace sluice::session {
namespace {

constexpr std::array<std::string_view, 1> kList = {"https://app.example"};

TEST(OriginCheck, NoOriginIsNotACrossSiteBrowserRequest) {
  EXPECT_EQ(judge_origin("", "h:1", {kList, true}), OriginVerdict::none);
  EXPECT_EQ(judge_origin("", "h:1", {{}, true}), OriginVerdict::none);
}

TEST(OriginCheck, TheServersOwnOriginIsAlwaysAllowed) {
  EXPECT_EQ(judge_origin("http://Push.Example:8080", "push.example:8080", {kList, true}), OriginVerdict::same);
  EXPECT_EQ(judge_origin("http://push.example:8081", "push.example:8080", {kList, true}), OriginVerdict::refused);
}

// A page on the plain-http side of the same host could be anyone's (it
// travels unencrypted): it is not the TLS listener's own origin.
TEST(OriginCheck, TheSameHostOverAnotherSchemeIsNotTheSameOrigin) {
  EXPECT_EQ(judge_origin("https://push.example", "push.example", {{}, true, true}), OriginVerdict::same);
  EXPECT_EQ(judge_origin("http://push.example", "push.example", {{}, true, true}), OriginVerdict::refused);
  EXPECT_EQ(judge_origin("https://push.example", "push.example", {{}, true, false}), OriginVerdict::refused);
  EXPECT_EQ(judge_origin("ws://push.example", "push.example", {{}, true, false}), OriginVerdict::refused);
}

TEST(OriginCheck, WithAListOnlyItsOriginsPass) {
  EXPECT_EQ(judge_origin("https://APP.example", "h:1", {kList, false}), OriginVerdict::listed);
  EXPECT_EQ(judge_origin("https://evil.example", "h:1", {kList, false}), OriginVerdict::refused);
  EXPECT_EQ(judge_origin("null", "h:1", {kList, false}), OriginVerdict::refused);
}

// An entry no Origin header can equal is refused when configured, not
// left to refuse the page it was meant for.
TEST(OriginCheck, AListEntryIsAnOriginAsBrowsersSendIt) {
  for (const char* entry : {"https://app.example", "http://127.0.0.1:8080", "HTTPS://APP.EXAMPLE", "null", "NULL",
                            "file://", "chrome-extension://abcdef", "http://[::1]:8080", "https://app.example:8443"}) {
    EXPECT_TRUE(valid_origin_entry(entry)) << entry;
  }
  for (const char* entry : {"app.example", "https://app.example/", "https://app.example/page", "https://", "://x",
                            "*", "https://a b", "https://user@app.example", "ht tp://x", "", "https://app.example:443",
                            "http://app.example:80"}) {
    EXPECT_FALSE(valid_origin_entry(entry)) << entry;
  }
}

TEST(OriginCheck, AnEmptyListOpensReadingToAnyOriginWithoutAuthAndNothingWithIt) {
  EXPECT_EQ(judge_origin("https://evil.example", "h:1", {{}, false}), OriginVerdict::open);
  EXPECT_EQ(judge_origin("https://evil.example", "h:1", {{}, true}), OriginVerdict::refused);
}

TEST(OriginCheck, StarOnlyWithoutAListAndWithoutAuth) {
  EXPECT_EQ(allow_origin_value(OriginVerdict::none, "", {{}, false}), "*");
  EXPECT_EQ(allow_origin_value(OriginVerdict::open, "https://a", {{}, false}), "*");
  EXPECT_EQ(allow_origin_value(OriginVerdict::none, "", {{}, true}), "");
  EXPECT_EQ(allow_origin_value(OriginVerdict::same, "http://h:1", {{}, true}), "http://h:1");
  EXPECT_EQ(allow_origin_value(OriginVerdict::listed, "https://app.example", {kList, true}), "https://app.example");
  EXPECT_EQ(allow_origin_value(OriginVerdict::refused, "https://evil", {kList, false}), "");
}

TEST(OriginCheck, CorsHeadersNameOneOriginWithCredentialsAndFitOrAreLeftOut) {
  char out[512];
  EXPECT_EQ(cors_headers("", true, out), "");
  EXPECT_EQ(cors_headers("*", false, out), "Access-Control-Allow-Origin: *\r\n");
  const std::string one(cors_headers("https://a", false, out));
  EXPECT_EQ(one, "Access-Control-Allow-Origin: https://a\r\nVary: Origin\r\nAccess-Control-Allow-Credentials: true\r\n");
  const std::string preflight(cors_headers("https://a", true, out));
  EXPECT_NE(preflight.find("Access-Control-Allow-Headers: Authorization, Content-Type, Last-Event-ID\r\n"),
            std::string::npos);
  char small[40];
  EXPECT_EQ(cors_headers("https://a", true, small), "");
}

}  // namespace
}  // namespace sluice::session
