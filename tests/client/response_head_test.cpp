#include "response_head.hpp"

#include "head_reader.hpp"

#include <gtest/gtest.h>

namespace sluice::client::detail {
namespace {

constexpr std::string_view kHead =
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Accept: abc=\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    "Retry-After: 3\r\nContent-Length: 12\r\n\r\nrest";

TEST(ResponseHead, ReadsStatusAndTheFieldsAClientUses) {
  ResponseHead head;
  ASSERT_EQ(parse_response_head(kHead, 16384, head), HeadStatus::complete);
  EXPECT_EQ(head.status, 101);
  EXPECT_EQ(head.size, kHead.size() - 4);
  EXPECT_EQ(head.upgrade, "websocket");
  EXPECT_EQ(head.connection, "Upgrade");
  EXPECT_EQ(head.websocket_accept, "abc=");
  EXPECT_TRUE(media_type_is(head.content_type, "text/event-stream"));
  EXPECT_EQ(retry_after_delay(head.retry_after), std::chrono::seconds(3));
  EXPECT_EQ(head.content_length, "12");
}

TEST(ResponseHead, EveryPrefixNeedsMore) {
  ResponseHead head;
  const std::size_t end = kHead.size() - 4;
  for (std::size_t n = 0; n < end; ++n) {
    EXPECT_EQ(parse_response_head(kHead.substr(0, n), 16384, head), HeadStatus::need_more) << n;
  }
  EXPECT_EQ(parse_response_head(kHead.substr(0, end), 16384, head), HeadStatus::complete);
}

TEST(ResponseHead, BareLineFeedsAreAccepted) {
  ResponseHead head;
  EXPECT_EQ(parse_response_head("HTTP/1.0 404 Not Found\nServer: x\n\n", 16384, head), HeadStatus::complete);
  EXPECT_EQ(head.status, 404);
  EXPECT_EQ(parse_response_head("HTTP/1.1 200\r\n\r\n", 16384, head), HeadStatus::complete);
}

TEST(ResponseHead, APeerThatIsNotHttpIsToldApartAtOnce) {
  ResponseHead head;
  EXPECT_EQ(parse_response_head("SSH-2", 16384, head), HeadStatus::not_http);
  EXPECT_EQ(parse_response_head("G", 16384, head), HeadStatus::not_http);
  EXPECT_EQ(parse_response_head("HTT", 16384, head), HeadStatus::need_more);
}

TEST(ResponseHead, MalformedLines) {
  ResponseHead head;
  for (const char* bad : {"HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200OK\r\n\r\n", "HTTP/1.1  200\r\n\r\n",
                          "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n",
                          "HTTP/1.1 200 OK\r\n: empty\r\n\r\n"}) {
    EXPECT_EQ(parse_response_head(bad, 16384, head), HeadStatus::malformed) << bad;
  }
}

TEST(ResponseHead, TooLong) {
  ResponseHead head;
  const std::string big = "HTTP/1.1 200 OK\r\nX: " + std::string(100, 'a');
  EXPECT_EQ(parse_response_head(big, 64, head), HeadStatus::too_long);
  EXPECT_EQ(parse_response_head(big + "\r\n\r\n", 64, head), HeadStatus::too_long);
}

TEST(ResponseHead, Helpers) {
  EXPECT_TRUE(list_has_token("keep-alive, Upgrade", "upgrade"));
  EXPECT_FALSE(list_has_token("keep-alive", "upgrade"));
  EXPECT_FALSE(list_has_token("", "upgrade"));
  EXPECT_FALSE(media_type_is("text/plain", "text/event-stream"));
  EXPECT_EQ(retry_after_delay(""), std::chrono::milliseconds(0));
  EXPECT_EQ(retry_after_delay("Wed, 21 Oct 2015 07:28:00 GMT"), std::chrono::milliseconds(0));
  EXPECT_EQ(retry_after_delay("99999"), std::chrono::seconds(3600));
}

// A refusal's first line follows its status, cut at the line's end, with
// whatever a terminal would act on written as \xHH: a hostile server cannot
// print a control sequence through the client's messages.
TEST(StatusError, SaysTheServersFirstLineWithControlBytesEscaped) {
  EXPECT_EQ(status_error(400, "GET /sse/x", "bad topic name\nmore").message,
            "GET /sse/x: the server answered 400: bad topic name");
  EXPECT_EQ(status_error(403, "GET /sse/x", "no\x1b[2Jway\r\n").message,
            "GET /sse/x: the server answered 403: no\\x1b[2Jway");
  EXPECT_EQ(status_error(404, "GET /x").message, "GET /x: the server answered 404");
  // sluiced's own bodies begin with the status: said once.
  EXPECT_EQ(status_error(413, "POST /pub/t", "413 Content Too Large: request body over http.max_body\n").message,
            "POST /pub/t: the server answered 413 Content Too Large: request body over http.max_body");
  EXPECT_EQ(status_error(500, "GET /x", std::string(300, 'a')).message.size(),
            std::string("GET /x: the server answered 500: ").size() + 200);
}

}  // namespace
}  // namespace sluice::client::detail
