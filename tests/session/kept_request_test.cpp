#include "session/kept_request.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::session {
namespace {

TEST(KeptRequest, OutlivesTheBytesItWasParsedFrom) {
  KeptRequest kept;
  EXPECT_TRUE(kept.empty());
  {
    std::string input =
        "GET /ws?token=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n";
    proto::http1::RequestParser parser;
    ASSERT_EQ(parser.parse(input).status, proto::http1::ParseStatus::complete);
    kept.keep(parser.request());
    input.assign(input.size(), '#');  // the connection's buffer moves on
  }
  EXPECT_FALSE(kept.empty());
  const RequestView view = kept.view();
  EXPECT_EQ(view.method, "GET");
  EXPECT_EQ(view.path, "/ws");
  EXPECT_EQ(view.query, "token=1");
  EXPECT_EQ(view.headers.get("authorization"), "Bearer t");
  EXPECT_EQ(view.headers.get("Cookie"), "a=1");
  ASSERT_EQ(view.headers.fields().size(), 4u);
  EXPECT_EQ(view.headers.fields()[3].value, "b=2");
}

}  // namespace
}  // namespace sluice::session
