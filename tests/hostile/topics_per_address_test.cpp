// Subscriptions from one address, over as many connections as it may
// open, once held every place in topics.max by following names nobody
// publishes to (anonymous subscribers of an open pattern locked every new
// topic out). topics.max_per_address bounds the topics one address may be
// the first to follow, however they were made: past it the subscription
// is refused naming the key, and another address is not held to it.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

// The status line and body of GET `target` sent from `source` (another
// loopback address), read until the server closes or 10 s pass.
std::string get_from(const char* source, std::uint16_t port, const std::string& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  timeval limit{.tv_sec = 10, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  std::string got;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) == 0 &&
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) {
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char chunk[4096];
    for (ssize_t n; got.find("\r\n\r\n") == std::string::npos && (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0;) {
      got.append(chunk, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return got;
}

TEST(TopicsPerAddress, AnAddressIsTheFirstFollowerOfOnlySoManyTopics) {
  server::Config config;
  config.hub.max_per_address = 2;
  RunningServer server(config);
  // One topic made by following it, one by a publish first: both count.
  SseSubscriber first(server.port(), "/sse/a");
  ASSERT_TRUE(first.opened());
  ASSERT_EQ(http_request(server.port(), "POST", "/pub/b", "x").status, 200);
  SseSubscriber second(server.port(), "/sse/b");
  ASSERT_TRUE(second.opened());
  // An SSE stream is told after its head, as at topics.max; a WebSocket
  // topic stream after its 101; a /ws subscribe in its ack.
  TestClient third(server.port());
  third.send("GET /sse/c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_TRUE(third.read_until_closed());
  EXPECT_NE(third.buffer().find("(topics.max_per_address)"), std::string::npos) << third.buffer();
  ws::WsTestClient fourth(server.port());
  ASSERT_TRUE(fourth.open("/ws/c"));
  EXPECT_EQ(fourth.read_close(), 1008);
  ws::WsTestClient fifth(server.port());
  ASSERT_TRUE(fifth.open("/ws"));
  fifth.send({.opcode = ws::kText, .payload = R"({"op":"subscribe","topic":"c","req":1})"});
  const std::optional<ws::ServerFrame> ack = fifth.read_message();
  ASSERT_TRUE(ack);
  EXPECT_NE(ack->payload.find("\"ok\":false"), std::string::npos) << ack->payload;
  EXPECT_NE(ack->payload.find("(topics.max_per_address)"), std::string::npos) << ack->payload;
  // Another address follows it first; following it then costs this one
  // nothing.
  EXPECT_NE(get_from("127.0.0.2", server.port(), "/sse/c").find(" 200 "), std::string::npos);
  SseSubscriber follower(server.port(), "/sse/c");
  EXPECT_TRUE(follower.opened());
}

}  // namespace
}  // namespace sluice::test
