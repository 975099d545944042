// Pages on other origins against a server with no auth and no
// ws.allowed_origins (the loopback default): they may read a stream, but a
// publish, a /ws connection, a publisher upgrade or a message on a
// /ws/{topic} from them is refused, so
// a web page cannot publish through the browser of someone running sluiced
// on their own machine.
#include <gtest/gtest.h>

#include <string>

#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

constexpr std::string_view kForeign = "Origin: https://evil.example\r\n";

std::string upgrade(std::string_view path, std::string_view origin) {
  return "GET " + std::string(path) +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
         std::string(origin) + "\r\n";
}

int status_of(std::uint16_t port, const std::string& request) {
  TestClient client(port);
  client.send(request);
  if (!client.read_until_contains("\r\n")) return 0;
  const std::string& reply = client.buffer();
  return reply.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(reply.substr(9, 3)) : 0;
}

TEST(CrossOrigin, APageOnAnotherOriginMayReadAStreamButNotPublish) {
  RunningServer server;

  TestClient reader(server.port());
  reader.send("GET /sse/news HTTP/1.1\r\nHost: 127.0.0.1\r\n" + std::string(kForeign) + "\r\n");
  ASSERT_TRUE(reader.read_until_contains("\r\n\r\n"));
  EXPECT_EQ(reader.buffer().rfind("HTTP/1.1 200", 0), 0u) << reader.buffer();
  EXPECT_NE(reader.buffer().find("Access-Control-Allow-Origin: *\r\n"), std::string::npos) << reader.buffer();

  TestClient publisher(server.port());
  publisher.send("POST /pub/news HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n" + std::string(kForeign) +
                 "Content-Length: 5\r\n\r\nforge");
  const HttpReply refused = read_reply(publisher);
  EXPECT_EQ(refused.status, 403);
  EXPECT_NE(refused.body.find("ws.allowed_origins"), std::string::npos) << refused.body;

  // Nothing reached the reader; a publish with no Origin (not a page) does.
  TestClient local(server.port());
  EXPECT_EQ(publish(local, "/pub/news", "real"), 200);
  ASSERT_TRUE(reader.read_until_contains("data: real\n"));
  EXPECT_EQ(reader.buffer().find("forge"), std::string::npos);
}

TEST(CrossOrigin, WebSocketsFromAnotherOriginMaySubscribeToATopicOnly) {
  RunningServer server;
  EXPECT_EQ(status_of(server.port(), upgrade("/ws/news", kForeign)), 101);
  EXPECT_EQ(status_of(server.port(), upgrade("/ws", kForeign)), 403);
  EXPECT_EQ(status_of(server.port(), upgrade("/pub/news", kForeign)), 403);
  EXPECT_EQ(status_of(server.port(), upgrade("/ws", "")), 101);
}

// A /ws/{topic} publishes what its client sends (ws.client_publish, on by
// default); from a page on another origin it only reads: its message closes
// it (1008) and is not published.
TEST(CrossOrigin, AWebSocketFromAnotherOriginFollowsItsTopicAndCannotPublishOnIt) {
  RunningServer server;
  SseSubscriber witness(server.port(), "/sse/news");
  ASSERT_TRUE(witness.opened());
  ws::WsTestClient page(server.port());
  ASSERT_EQ(page.upgrade({.path = "/ws/news", .origin = "https://evil.example"}).status, 101);

  TestClient local(server.port());
  EXPECT_EQ(publish(local, "/pub/news", "real"), 200);
  const std::optional<ws::ServerFrame> got = page.read_message();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->payload, "real");

  page.send({.opcode = ws::kText, .payload = "forge"});
  EXPECT_EQ(page.read_close(), 1008);
  // The witness gets what came after, and never the forged message.
  EXPECT_EQ(publish(local, "/pub/news", "after"), 200);
  ASSERT_TRUE(witness.wait_for(2));
  EXPECT_EQ(witness.events()[0].data, "real");
  EXPECT_EQ(witness.events()[1].data, "after");

  // Its own page (an Origin naming the Host) publishes as before.
  ws::WsTestClient own(server.port());
  ASSERT_EQ(own.upgrade({.path = "/ws/news", .origin = "http://127.0.0.1"}).status, 101);
  own.send({.opcode = ws::kText, .payload = "own"});
  ASSERT_TRUE(witness.wait_for(3));
  EXPECT_EQ(witness.events()[2].data, "own");
}

}  // namespace
}  // namespace sluice::test
