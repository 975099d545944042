#include "log/redact.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace sluice::log {
namespace {

std::string redacted(std::string_view target, std::size_t room = 512) {
  std::array<char, 512> out;
  return std::string(redact_target(target, std::span<char>(out.data(), room)));
}

TEST(LogRedact, CredentialHeadersAreRedactedWhateverTheirCase) {
  for (const char* name : {"Authorization", "authorization", "PROXY-AUTHORIZATION", "Cookie", "Set-Cookie",
                           "X-Api-Key", "X-Auth-Token", "Sec-WebSocket-Protocol"}) {
    EXPECT_TRUE(is_secret_header(name)) << name;
    EXPECT_EQ(loggable_header(name, "Bearer abc.def.ghi"), kRedacted) << name;
  }
  for (const char* name : {"User-Agent", "Host", "Last-Event-ID", "Authorizations", "Cookies"}) {
    EXPECT_FALSE(is_secret_header(name)) << name;
    EXPECT_EQ(loggable_header(name, "v"), "v") << name;
  }
}

TEST(LogRedact, SluicesOwnParametersAreShownAnyOtherValueIsNot) {
  EXPECT_EQ(redacted("/sse/news"), "/sse/news");
  EXPECT_EQ(redacted("/sse?topic=a&topic=b&lastEventId=mx3:4&policy=latest"),
            "/sse?topic=a&topic=b&lastEventId=mx3:4&policy=latest");
  EXPECT_EQ(redacted("/pub/news?event=price&key=EURUSD"), "/pub/news?event=price&key=EURUSD");
  EXPECT_EQ(redacted("/sse/news?token=eyJhbGci.secret&topic=x"), "/sse/news?token=[redacted]&topic=x");
  EXPECT_EQ(redacted("/ws?access_token=s3cr3t"), "/ws?access_token=[redacted]");
  EXPECT_EQ(redacted("/ws?jwt=a=b=c"), "/ws?jwt=[redacted]");
  EXPECT_EQ(redacted("/ws?Topic=x"), "/ws?Topic=[redacted]");  // names match exactly
}

TEST(LogRedact, BareParametersAndOddQueries) {
  EXPECT_EQ(redacted("/sse/news?eyJhbGciOiJIUzI1NiJ9"), "/sse/news?[redacted]");
  EXPECT_EQ(redacted("/sse/news?topic"), "/sse/news?topic");
  EXPECT_EQ(redacted("/sse/news?"), "/sse/news?");
  EXPECT_EQ(redacted("/sse/news?&&token=x&"), "/sse/news?&&token=[redacted]&");
  EXPECT_EQ(redacted("/sse/news?token=x#frag=secret"), "/sse/news?token=[redacted]");
  EXPECT_EQ(redacted("/a?empty="), "/a?empty=[redacted]");
}

TEST(LogRedact, ATargetTooLongIsCutAtAParameterWithAMark) {
  EXPECT_EQ(redacted("/sse/news?topic=abc&token=xyz", 24), "/sse/news?topic=abc&...");
  EXPECT_EQ(redacted("/a-very-long-path-indeed", 10), "...");
  // Never a secret, however the room falls.
  const std::string target = "/x?token=SECRET&topic=t";
  for (std::size_t room = 3; room < 40; ++room) {
    EXPECT_EQ(redacted(target, room).find("SECRET"), std::string::npos) << room;
    EXPECT_LE(redacted(target, room).size(), room);
  }
}

}  // namespace
}  // namespace sluice::log
