#include "session/response.hpp"

#include <gtest/gtest.h>

#include "collecting_sink.hpp"

namespace sluice::session {
namespace {

std::string written(const Response& response) {
  test::CollectingSink sink;
  write_response(sink, response);
  return sink.bytes;
}

TEST(Response, AReplyStatesItsTypeAndLengthThenItsBody) {
  EXPECT_EQ(written({.status = 200, .body = "hello", .keep_alive = false}),
            "HTTP/1.1 200 OK\r\nServer: sluice\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n"
            "Connection: close\r\n\r\nhello");
}

// A HEAD's reply gives the length of the body it leaves out.
TEST(Response, AHeadsReplyHasTheLengthAndNoBody) {
  EXPECT_EQ(written({.status = 200, .body = "hello", .head_only = true}),
            "HTTP/1.1 200 OK\r\nServer: sluice\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n"
            "Connection: keep-alive\r\n\r\n");
}

// A 204 ends at its head: no type, no length, and no body even if given
// one, which a client would read as the start of the next reply.
TEST(Response, A204EndsAtItsHead) {
  EXPECT_EQ(written({.status = 204, .body = "stray", .extra_headers = "Allow: GET\r\n"}),
            "HTTP/1.1 204 No Content\r\nServer: sluice\r\nConnection: keep-alive\r\nAllow: GET\r\n\r\n");
}

}  // namespace
}  // namespace sluice::session
