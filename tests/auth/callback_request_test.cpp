#include "auth/callback_request.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sluice::auth {
namespace {

CallbackTarget target() {
  CallbackTarget t;
  t.host = "auth.internal:9000";
  t.target = "/check";
  return t;
}

TEST(CallbackRequest, IsAPostOfJsonWithItsLength) {
  const std::vector<proto::http1::Header> headers;
  const std::string request = callback_request(target(), {Action::subscribe, "news", headers, "::1"}, {});
  const std::string body = R"({"action":"subscribe","remote_addr":"::1","topic":"news"})";
  EXPECT_EQ(request,
            "POST /check HTTP/1.1\r\nHost: auth.internal:9000\r\nUser-Agent: sluiced\r\n"
            "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body);
}

TEST(CallbackRequest, JoinsCookiesAndCopiesNamedHeadersAsTheyCame) {
  const std::vector<proto::http1::Header> headers = {
      {"cookie", "a=1"}, {"X-Tenant", "t1"}, {"Cookie", "b=2"}, {"x-tenant", "t2"}, {"X-Drop", "d"}};
  const std::vector<std::string> forwarded = {"X-Tenant"};
  const std::string request = callback_request(target(), {Action::publish, "p", headers, "1.2.3.4"}, forwarded);
  EXPECT_NE(request.find("\r\nCookie: a=1; b=2\r\nX-Tenant: t1\r\nX-Tenant: t2\r\n\r\n"), std::string::npos) << request;
  EXPECT_EQ(request.find("X-Drop"), std::string::npos);
}

TEST(CallbackRequest, StatusesBecomeDecisions) {
  EXPECT_TRUE(decision_for_status(200, "").allowed());
  EXPECT_TRUE(decision_for_status(204, "").allowed());
  EXPECT_EQ(decision_for_status(401, "").verdict, Verdict::unauthenticated);
  EXPECT_FALSE(decision_for_status(401, "").bad_token);
  EXPECT_EQ(decision_for_status(403, "").verdict, Verdict::forbidden);
  EXPECT_EQ(decision_for_status(429, "12").retry_after_s, 12u);
  EXPECT_EQ(decision_for_status(429, "Wed, 21 Oct 2015 07:28:00 GMT").retry_after_s, 1u);
  EXPECT_EQ(decision_for_status(429, "999999").retry_after_s, 3600u);
  for (int status : {100, 301, 302, 400, 404, 500, 502, 503}) {
    EXPECT_EQ(decision_for_status(status, "").verdict, Verdict::unavailable) << status;
  }
}

TEST(CallbackRequest, OnlyTheCallbacksOwnVerdictsAreCached) {
  EXPECT_TRUE(cacheable(Decision::allow()));
  EXPECT_TRUE(cacheable(Decision::forbid("x")));
  EXPECT_TRUE(cacheable(Decision::missing_token("x")));
  EXPECT_FALSE(cacheable(Decision::over_limit("x", 1)));
  EXPECT_FALSE(cacheable(Decision::callback_failed("x", 1)));
}

TEST(CallbackRequest, ForwardedHeaderNamesAreChecked) {
  EXPECT_EQ(check_forwarded_headers(std::vector<std::string>{"Authorization", "X-Session"}), "");
  EXPECT_EQ(check_forwarded_headers(std::vector<std::string>{"Content-Length"}),
            "config key 'auth.callback_headers': 'Content-Length' cannot be forwarded (sluice sets it, or sends "
            "cookies itself)");
  EXPECT_EQ(check_forwarded_headers(std::vector<std::string>{"host"}).empty(), false);
  EXPECT_EQ(check_forwarded_headers(std::vector<std::string>{"Bad Name"}),
            "config key 'auth.callback_headers': 'Bad Name' is not a header name");
}

}  // namespace
}  // namespace sluice::auth
