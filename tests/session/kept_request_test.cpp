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
    ASSERT_EQ(kept.keep(parser.request(), nullptr), buf::ChargeStatus::ok);
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

proto::http1::RequestParser parsed(const std::string& input) {
  proto::http1::RequestParser parser;
  EXPECT_EQ(parser.parse(input).status, proto::http1::ParseStatus::complete);
  return parser;
}

// The copy is charged before it is made, at least its text, and given back
// when it is replaced or goes; a copy the account cannot hold is not made.
TEST(KeptRequest, ItsCopyIsChargedToTheAccountAndGivenBack) {
  buf::MemoryCap cap(1 << 20);
  buf::MemoryAccount account(&cap, 8192);
  const std::string padding(3000, 'p');
  const std::string input = "GET /ws/t HTTP/1.1\r\nHost: x\r\nX-Pad: " + padding + "\r\n\r\n";
  proto::http1::RequestParser parser = parsed(input);
  {
    KeptRequest kept;
    ASSERT_EQ(kept.keep(parser.request(), &account), buf::ChargeStatus::ok);
    EXPECT_GE(kept.charged(), padding.size() + std::string_view("GET/ws/tHostxX-Pad").size());
    EXPECT_EQ(account.charged(), kept.charged());
    EXPECT_EQ(cap.charged(), kept.charged());
    const std::size_t first = kept.charged();
    // Kept again (the same Peer, another request): the first copy's charge
    // is replaced, not added to.
    ASSERT_EQ(kept.keep(parser.request(), &account), buf::ChargeStatus::ok);
    EXPECT_EQ(account.charged(), first);

    // Two copies fit in 8 KiB, a third does not: refused, nothing kept,
    // nothing more charged.
    KeptRequest second;
    ASSERT_EQ(second.keep(parser.request(), &account), buf::ChargeStatus::ok);
    KeptRequest refused;
    EXPECT_EQ(refused.keep(parser.request(), &account), buf::ChargeStatus::over_connection);
    EXPECT_TRUE(refused.empty());
    EXPECT_EQ(refused.charged(), 0u);
    EXPECT_EQ(account.charged(), 2 * first);
  }
  EXPECT_EQ(account.charged(), 0u);
  EXPECT_EQ(cap.charged(), 0u);
}

TEST(KeptRequest, TheServersCapRefusesItToo) {
  buf::MemoryCap cap(1024);
  buf::MemoryAccount account(&cap, 1 << 20);
  const std::string input = "GET /ws HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(2000, 'p') + "\r\n\r\n";
  proto::http1::RequestParser parser = parsed(input);
  KeptRequest kept;
  EXPECT_EQ(kept.keep(parser.request(), &account), buf::ChargeStatus::over_server);
  EXPECT_TRUE(kept.empty());
  EXPECT_EQ(cap.charged(), 0u);
}

}  // namespace
}  // namespace sluice::session
