// A request head over HTTP/2 begun and never finished: a frame header cut
// short, or HEADERS without END_HEADERS and no CONTINUATION to end it.
// Nothing else of the client's can be read behind it, so the connection is
// held by it alone; it is bounded by timeouts.handshake_ms, as a slow
// HTTP/1.1 head is, and not by the keep-alive timeout of a connection
// that was served before, nor by the streams it has open.
#include <gtest/gtest.h>

#include <string>

#include "h2_test_client.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::h2_frame;
using transport::test::H2TestClient;

server::Config quick_heads() {
  server::Config config;
  config.handshake_timeout_ms = 300;
  config.idle_timeout_ms = 60'000;
  return config;
}

TEST(H2SlowHeads, AHeaderBlockLeftOpenAfterAServedRequestEndsTheConnection) {
  RunningServer server(quick_heads());
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t served = client.request("GET", "/healthz");
  ASSERT_TRUE(client.pump([&] { return client.stream(served).closed; }));
  EXPECT_EQ(client.stream(served).status, 200);
  client.write_raw(h2_frame(0x1, 0x0, 3, "\x82"));  // HEADERS, ":method GET", no END_HEADERS
  EXPECT_TRUE(client.pump([&] { return client.eof(); }, 5s)) << "the connection outlived the request timeout";
  EXPECT_TRUE(client.goaway());
}

TEST(H2SlowHeads, AFrameHeaderCutShortEndsTheConnectionWithItsStreams) {
  RunningServer server(quick_heads());
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t events = client.request("GET", "/sse/slow-heads");
  ASSERT_TRUE(client.pump([&] { return client.stream(events).status == 200; }));
  client.write_raw(std::string("\0\0\x01", 3));  // the first 3 of a frame header's 9 bytes
  EXPECT_TRUE(client.pump([&] { return client.eof(); }, 5s)) << "the connection outlived the request timeout";
  EXPECT_TRUE(client.goaway());
}

}  // namespace
}  // namespace sluice::test
