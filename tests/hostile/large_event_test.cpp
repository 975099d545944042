// One event whose wire form is over a subscriber's send budget (a POST of
// line feeds is seven times its size as SSE: each line its own "data: ")
// goes to a fifo subscriber whole, and the events behind it have the whole
// budget: a reader still taking the large one is not cut off as slow, as
// every SSE subscriber of a topic once was by one such POST.
#include <gtest/gtest.h>

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
  ASSERT_EQ(http_request(port, "POST", "/pub/t", "after").status, 200);
  const bool got = subscriber.read_until_contains("data: after\n", 30s);
  const std::string& stream = subscriber.buffer();
  EXPECT_TRUE(got) << stream.substr(stream.size() > 200 ? stream.size() - 200 : 0);
  EXPECT_EQ(stream.find("slow consumer"), std::string::npos);
}

}  // namespace
}  // namespace sluice::test
