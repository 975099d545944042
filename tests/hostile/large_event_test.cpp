// One event whose wire form is over a subscriber's send budget (a POST of
// line feeds is seven times its size as SSE: each line its own "data: ")
// goes to a fifo subscriber whole, and the events behind it have the whole
// budget: a reader still taking the large one is not cut off as slow, as
// every SSE subscriber of a topic once was by one such POST.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "test_client.hpp"

namespace sluice::test {
namespace {

TEST(LargeEvent, AnEventOverTheSendBudgetCutsOffNoReaderTakingIt) {
  RunningServer server;  // fifo, send.budget_bytes 1 MiB
  const std::uint16_t port = server.port();
  // A small receive buffer: the large event is still on its way when the
  // next one comes.
  TestClient subscriber(port, 4096);
  subscriber.send("GET /sse/t HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(subscriber.read_until_contains("\r\n\r\n"));
  const std::string lines(512 * 1024, '\n');  // 3.5 MiB as SSE
  ASSERT_EQ(http_request(port, "POST", "/pub/t", lines).status, 200);
  // The large event is past history.max_bytes: until the loop has handed it
  // over, the next publish would drop it from the history unsent and is
  // answered 503 with Retry-After: 0, which a publisher retries.
  int status = 503;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (status == 503 && std::chrono::steady_clock::now() < deadline) {
    status = http_request(port, "POST", "/pub/t", "after").status;
  }
  ASSERT_EQ(status, 200);
  const bool got = subscriber.read_until_contains("data: after\n", 30s);
  const std::string& stream = subscriber.buffer();
  EXPECT_TRUE(got) << stream.substr(stream.size() > 200 ? stream.size() - 200 : 0);
  EXPECT_EQ(stream.find("slow consumer"), std::string::npos);
}

// The large event need not find the queue empty: publishes that reach the
// loop together (pipelined here) put a small one ahead of it.
TEST(LargeEvent, ALargeEventBehindASmallOneCutsOffNoReaderTakingThem) {
  server::Config config;
  config.connection.send.max_bytes = 64 * 1024;
  RunningServer server(config);
  const std::uint16_t port = server.port();
  TestClient subscriber(port, 4096);
  subscriber.send("GET /sse/t HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(subscriber.read_until_contains("\r\n\r\n"));
  const std::string large(200 * 1024, 'x');
  const auto post = [](std::string_view body) {
    return "POST /pub/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + std::string(body);
  };
  TestClient publisher(port);
  publisher.send(post("small") + post(large) + post("after"));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(read_reply(publisher).status, 200) << i;
  const bool got = subscriber.read_until_contains("data: after\n", 30s);
  const std::string& stream = subscriber.buffer();
  EXPECT_TRUE(got) << stream.substr(stream.size() > 200 ? stream.size() - 200 : 0);
  EXPECT_NE(stream.find("data: small\n"), std::string::npos);
  EXPECT_EQ(stream.find("slow consumer"), std::string::npos);
}

}  // namespace
}  // namespace sluice::test
