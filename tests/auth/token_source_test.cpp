#include "auth/token_source.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sluice::auth {
namespace {

using Headers = std::vector<proto::http1::Header>;

FoundToken find(const Headers& headers, std::string_view query = "", TokenLookup lookup = {}) {
  return find_token(headers, query, lookup);
}

TEST(TokenSource, ReadsABearerHeader) {
  const FoundToken found = find({{"Host", "x"}, {"Authorization", "Bearer abc.def.ghi"}});
  EXPECT_EQ(found.source, TokenSource::header);
  EXPECT_EQ(found.token, "abc.def.ghi");
  EXPECT_EQ(found.error, nullptr);
  EXPECT_EQ(find({{"authorization", "bearer   abc"}}).token, "abc");  // scheme is case-insensitive
}

TEST(TokenSource, ReadsTheNamedCookie) {
  const FoundToken found = find({{"Cookie", "theme=dark; sluice_token=abc.def.ghi; other=1"}});
  EXPECT_EQ(found.source, TokenSource::cookie);
  EXPECT_EQ(found.token, "abc.def.ghi");
  TokenLookup custom;
  custom.cookie_name = "jwt";
  EXPECT_EQ(find({{"Cookie", "sluice_token=a"}, {"Cookie", "jwt=\"b\""}}, "", custom).token, "b");
  custom.cookie_name = "";
  EXPECT_EQ(find({{"Cookie", "sluice_token=a"}}, "", custom).source, TokenSource::none);
}

TEST(TokenSource, ReadsTheQueryParameterUnlessTurnedOff) {
  const FoundToken found = find({}, "topic=news&token=abc.def.ghi");
  EXPECT_EQ(found.source, TokenSource::query);
  EXPECT_EQ(found.token, "abc.def.ghi");
  TokenLookup no_query;
  no_query.query = false;
  EXPECT_EQ(find({}, "token=abc", no_query).source, TokenSource::none);
}

TEST(TokenSource, HeaderThenCookieThenQuery) {
  const Headers both = {{"Cookie", "sluice_token=from-cookie"}, {"Authorization", "Bearer from-header"}};
  EXPECT_EQ(find(both, "token=from-query").token, "from-header");
  EXPECT_EQ(find({{"Cookie", "sluice_token=from-cookie"}}, "token=from-query").token, "from-cookie");
}

TEST(TokenSource, OtherAuthorizationSchemesArePassedOver) {
  const FoundToken found = find({{"Authorization", "Basic dXNlcjpwYXNz"}, {"Cookie", "sluice_token=c"}});
  EXPECT_EQ(found.source, TokenSource::cookie);
  EXPECT_EQ(found.token, "c");
  EXPECT_EQ(find({{"Authorization", "Bearerabc"}}).source, TokenSource::none);
}

TEST(TokenSource, AmbiguousOrEmptyCredentialsAreAnError) {
  const FoundToken two = find({{"Authorization", "Bearer a"}, {"Authorization", "Bearer b"}});
  ASSERT_NE(two.error, nullptr);
  EXPECT_STREQ(two.error, "more than one Authorization header");
  EXPECT_TRUE(two.token.empty());
  const FoundToken empty = find({{"Authorization", "Bearer"}, {"Cookie", "sluice_token=c"}});
  ASSERT_NE(empty.error, nullptr);
  EXPECT_STREQ(empty.error, "Authorization: Bearer carries no token");
}

TEST(TokenSource, NothingFound) {
  const FoundToken found = find({{"Cookie", "sluice_token="}}, "topic=a&tokens=b");
  EXPECT_EQ(found.source, TokenSource::none);
  EXPECT_TRUE(found.token.empty());
  EXPECT_EQ(found.error, nullptr);
}

TEST(CookieValue, ParsesPairsLikeABrowserSendsThem) {
  EXPECT_EQ(cookie_value("a=1; b=2", "b"), "2");
  EXPECT_EQ(cookie_value("a=1;b=2", "b"), "2");
  EXPECT_EQ(cookie_value("b=first; b=second", "b"), "first");
  EXPECT_EQ(cookie_value("ab=1; b", "b"), "");
  EXPECT_EQ(cookie_value("xb=1", "b"), "");
  EXPECT_EQ(cookie_value("b=\"quoted\"", "b"), "quoted");
  EXPECT_EQ(cookie_value("", "b"), "");
  EXPECT_EQ(cookie_value(";;; b=3 ;", "b"), "3");
}

}  // namespace
}  // namespace sluice::auth
