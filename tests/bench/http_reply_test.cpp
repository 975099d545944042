#include "http_reply.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::bench {
namespace {

TEST(ReplyHead, ReadsStatusLengthAndType) {
  const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello";
  ReplyHead head;
  ASSERT_EQ(parse_reply_head(reply, head), HeadStatus::ok);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.content_length, 5u);
  EXPECT_EQ(head.content_type, "application/json");
  EXPECT_EQ(reply_size(head), reply.size());
}

TEST(ReplyHead, NeedsMoreUntilTheBlankLine) {
  const std::string reply = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
  ReplyHead head;
  for (std::size_t cut = 0; cut < reply.size(); ++cut) {
    EXPECT_EQ(parse_reply_head(reply.substr(0, cut), head), HeadStatus::need_more) << cut;
  }
  ASSERT_EQ(parse_reply_head(reply, head), HeadStatus::ok);
  EXPECT_EQ(head.status, 503);
}

TEST(ReplyHead, RefusesMalformedHeads) {
  for (const std::string bad : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n",
                                "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
                                "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
                                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"}) {
    ReplyHead head;
    EXPECT_EQ(parse_reply_head(bad, head), HeadStatus::error) << bad;
  }
}

TEST(ReplyHead, FindsAHeaderValueWhateverItsCase) {
  const std::string head = "HTTP/1.1 101 Switching Protocols\r\nUPGRADE:  websocket \r\nSec-WebSocket-Accept: abc=\r\n\r\n";
  EXPECT_EQ(header_value(head, "upgrade"), "websocket");
  EXPECT_EQ(header_value(head, "sec-websocket-accept"), "abc=");
  EXPECT_EQ(header_value(head, "connection"), "");
  EXPECT_EQ(header_value(head, "HTTP/1.1 101 Switching Protocols"), "") << "the status line is no header";
}

}  // namespace
}  // namespace sluice::bench
