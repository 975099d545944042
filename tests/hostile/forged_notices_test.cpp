// Forged notices: a publisher imitates what the server says about lost
// events (an SSE event named sluice-dropped, a /ws/{topic} message opening
// {"sluice":), by every way there is to publish. Each attempt is refused
// with a reason naming the reserved form, and subscribers of every kind
// see only the real events, in order.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

constexpr std::string_view kForgedData =
    R"({"topic":"t","dropped":999999,"first_id":"x:1","last_id":"x:9","policy":"fifo"})";

TEST(ForgedNotices, PostRefusesReservedEventNamesAndData) {
  RunningServer server;
  const std::uint16_t port = server.port();
  for (const char* event : {"sluice-dropped", "sluice-reset", "sluice-anything"}) {
    const HttpReply reply = http_request(port, "POST", std::string("/pub/t?event=") + event, kForgedData);
    EXPECT_EQ(reply.status, 400) << event;
    EXPECT_NE(reply.body.find("sluice-"), std::string::npos) << reply.body;
  }
  const HttpReply envelope = http_request(port, "POST", "/pub/t", R"({"sluice":"reset","topic":"t"})");
  EXPECT_EQ(envelope.status, 400);
  EXPECT_NE(envelope.body.find("{\"sluice\":"), std::string::npos) << envelope.body;
  EXPECT_EQ(http_request(port, "POST", "/pub/t?event=not-sluice-dropped", "x").status, 200);
}

// A name that does not decode is refused, never published without it.
TEST(ForgedNotices, EventNamesThatDoNotDecodeAreRefused) {
  RunningServer server;
  const std::uint16_t port = server.port();
  EXPECT_EQ(http_request(port, "POST", "/pub/t?event=" + std::string(255, 'e'), "x").status, 200);
  EXPECT_EQ(http_request(port, "POST", "/pub/t?event=" + std::string(256, 'e'), "x").status, 400);
  EXPECT_EQ(http_request(port, "POST", "/pub/t?event=" + std::string(300, 'e'), "x").status, 400);
  EXPECT_EQ(http_request(port, "POST", "/pub/t?event=bad%zzescape", "x").status, 400);
  EXPECT_EQ(http_request(port, "POST", "/pub/t?key=bad%zzescape", "x").status, 400);
}

// A key is held to 255 bytes whichever way it is published: over /ws it
// once went through whole (to a broker, and to every node reading it).
TEST(ForgedNotices, AKeyIsAtMost255BytesHoweverItIsPublished) {
  RunningServer server;
  const std::uint16_t port = server.port();
  EXPECT_EQ(http_request(port, "POST", "/pub/t?key=" + std::string(255, 'k'), "x").status, 200);
  EXPECT_EQ(http_request(port, "POST", "/pub/t?key=" + std::string(256, 'k'), "x").status, 400);

  WsTestClient publisher(port);
  ASSERT_TRUE(publisher.open("/ws"));
  const auto publish_with_key = [&](std::size_t size, int req) {
    publisher.send({.opcode = kText,
                    .payload = R"({"op":"publish","topic":"t","data":"x","key":")" + std::string(size, 'k') +
                               R"(","req":)" + std::to_string(req) + "}"});
    const std::optional<ServerFrame> ack = publisher.read_message();
    return ack ? ack->payload : std::string("no ack");
  };
  EXPECT_NE(publish_with_key(255, 1).find("\"ok\":true"), std::string::npos);
  const std::string refused = publish_with_key(256, 2);
  EXPECT_NE(refused.find("\"ok\":false"), std::string::npos) << refused;
  EXPECT_NE(refused.find("bad key: at most 255 bytes"), std::string::npos) << refused;
}

TEST(ForgedNotices, WebSocketPublishersCannotSendANotice) {
  RunningServer server;
  const std::uint16_t port = server.port();
  WsTestClient subscriber(port);
  ASSERT_TRUE(subscriber.open("/ws/t"));
  SseSubscriber sse(port, "/sse/t");
  ASSERT_TRUE(sse.opened());

  WsTestClient raw_forger(port);
  ASSERT_TRUE(raw_forger.open("/ws/t"));
  raw_forger.send({.opcode = kText, .payload = R"({"sluice":"reset","topic":"t","reason":"too-old","last_id":"x:1"})"});
  EXPECT_EQ(raw_forger.read_close(), 1008);

  WsTestClient json_forger(port);
  ASSERT_TRUE(json_forger.open("/ws"));
  json_forger.send(
      {.opcode = kText, .payload = R"({"op":"publish","topic":"t","event":"sluice-dropped","data":"{}","req":1})"});
  const std::optional<ServerFrame> ack = json_forger.read_message();
  ASSERT_TRUE(ack);
  EXPECT_NE(ack->payload.find("\"ok\":false"), std::string::npos) << ack->payload;
  EXPECT_NE(ack->payload.find("sluice-"), std::string::npos) << ack->payload;
  json_forger.send(
      {.opcode = kText, .payload = R"({"op":"publish","topic":"t","data":"{\"sluice\":\"reset\"}","req":2})"});
  const std::optional<ServerFrame> ack2 = json_forger.read_message();
  ASSERT_TRUE(ack2);
  EXPECT_NE(ack2->payload.find("\"ok\":false"), std::string::npos) << ack2->payload;

  EXPECT_EQ(http_request(port, "POST", "/pub/t", "real").status, 200);
  const std::optional<ServerFrame> m = subscriber.read_message();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->payload, "real");  // the first message the subscriber gets
  ASSERT_TRUE(sse.wait_for(1));
  EXPECT_FALSE(sse.events()[0].type.starts_with("sluice-"));
  EXPECT_EQ(sse.events()[0].data, "real");
}

}  // namespace
}  // namespace sluice::test::ws
