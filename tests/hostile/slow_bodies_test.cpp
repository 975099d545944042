// A POST whose headers arrive and whose body then stalls, or trickles in a
// byte at a time, would hold its connection and the body buffered so far
// for as long as the client likes. The whole request, body included, must
// arrive within timeouts.handshake_ms of its first byte: past it the
// client gets 408 and the connection closes. A trickle does not restart
// the clock; only a whole request does.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "test_client.hpp"

namespace sluice::test {
namespace {

server::Config quick_requests() {
  server::Config config;
  config.handshake_timeout_ms = 300;
  return config;
}

TEST(SlowBodies, ABodyThatStallsAfterItsHeadersGets408) {
  RunningServer server(quick_requests());
  TestClient client(server.port());
  client.send("POST /pub/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n" + std::string(1000, 'a'));
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 408);
  EXPECT_TRUE(client.read_until_closed());
}

TEST(SlowBodies, AChunkedBodyTrickledPastTheTimeoutGets408) {
  RunningServer server(quick_requests());
  TestClient client(server.port());
  client.send("POST /pub/t HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  const auto start = std::chrono::steady_clock::now();
  // A chunk every 30 ms, never the last one: each arrives well within the
  // timeout, the request as a whole does not.
  bool answered = false;
  for (int i = 0; i < 200 && !answered; ++i) {
    client.send("1\r\na\r\n");
    answered = client.read_until([](const std::string& b) { return !b.empty(); }, std::chrono::milliseconds(30));
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(answered);
  EXPECT_EQ(read_reply(client).status, 408);
  EXPECT_TRUE(client.read_until_closed());
  EXPECT_LT(waited, std::chrono::seconds(5));
}

TEST(SlowBodies, WholeRequestsOnAKeptConnectionEachGetTheirOwnTime) {
  RunningServer server(quick_requests());
  TestClient client(server.port());
  for (int i = 0; i < 4; ++i) {
    client.send("POST /pub/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\na");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the pace under test, within the timeout
    client.send("b");
    EXPECT_EQ(read_reply(client).status, 200) << i;
  }
}

}  // namespace
}  // namespace sluice::test
