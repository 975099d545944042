// Hostile /ws JSON clients: a request built to overflow a recursive reader,
// requests whose `req` is as large as a message may be, clients that never
// read their answers, and requests pipelined by the thousand. Each is
// answered (or closed with a reason), costs the other clients nothing, and
// the server stays up.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <memory>
#include <thread>
#include <vector>

#include "proto/ws_json.hpp"
#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

namespace wsjson = proto::wsjson;

std::string text_frame(std::string_view payload) { return wire({.opcode = kText, .payload = std::string(payload)}); }

// The next message from the server read as a /ws server message; the
// reader's scratch lives in `scratch`.
testing::AssertionResult read_ack(WsTestClient& client, std::string& scratch, wsjson::ServerMessage& ack) {
  const std::optional<ServerFrame> m = client.read_message();
  if (!m) return testing::AssertionFailure() << "no message";
  scratch.assign(m->payload);
  static std::string decoded;
  decoded.resize(scratch.size());
  const wsjson::ReadResult r =
      wsjson::read_server_message(scratch, wsjson::Style::json_protocol, {}, decoded, ack);
  if (!r.ok()) return testing::AssertionFailure() << r.reason << " in " << scratch.substr(0, 200);
  if (ack.op != wsjson::ServerOp::ack) return testing::AssertionFailure() << "not an ack: " << scratch.substr(0, 200);
  return testing::AssertionSuccess();
}

TEST(WsJsonHostile, DeeplyNestedReqIsRefusedAndTheServerStaysUp) {
  RunningServer server;
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  // 200 KB: a reader that recursed per level, or a writer that rebuilt
  // `req`, would need 100,000 stack frames.
  const std::string nested = "{\"op\":\"x\",\"req\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  client.send_raw(text_frame(nested));
  std::string text;
  wsjson::ServerMessage ack;
  ASSERT_TRUE(read_ack(client, text, ack));
  EXPECT_FALSE(ack.ok);
  EXPECT_EQ(ack.req.text(), "null") << text;
  EXPECT_NE(ack.error.find("\"req\" must be"), std::string_view::npos) << text;

  // The same depth in a member the protocol does not know, after `req`.
  const std::string skipped =
      "{\"req\":5,\"op\":\"x\",\"other\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  client.send_raw(text_frame(skipped));
  ASSERT_TRUE(read_ack(client, text, ack));
  EXPECT_FALSE(ack.ok);
  EXPECT_EQ(ack.req.text(), "5") << text;
  EXPECT_NE(ack.error.find("nested deeper than allowed (ws.json_max_depth)"), std::string_view::npos) << text;

  // The same connection goes on, and so does the server.
  client.send_raw(text_frame(R"({"op":"subscribe","topic":"after","req":7})"));
  ASSERT_TRUE(read_ack(client, text, ack));
  EXPECT_TRUE(ack.ok) << text;
  EXPECT_EQ(ack.req.text(), "7");
  EXPECT_EQ(http_request(server.port(), "GET", "/healthz").status, 200);
}

TEST(WsJsonHostile, ReqIsEchoedOnlyAsAShortScalar) {
  RunningServer server;
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  std::string text;
  wsjson::ServerMessage ack;
  client.send_raw(text_frame(R"({"op":"subscribe","topic":"t","req":9223372036854775809})"));
  ASSERT_TRUE(read_ack(client, text, ack));
  EXPECT_EQ(ack.req.text(), "9223372036854775809");  // as written, not through a double

  client.send_raw(text_frame(R"({"op":"subscribe","topic":"t","req":{"a":[1,2,3]}})"));
  ASSERT_TRUE(read_ack(client, text, ack));
  EXPECT_FALSE(ack.ok);
  EXPECT_EQ(ack.req.text(), "null");
  EXPECT_NE(ack.error.find("\"req\" must be"), std::string_view::npos) << text;

  client.send_raw(text_frame(R"({"req":"a","op":"publish","topic":"t","data":7})"));
  ASSERT_TRUE(read_ack(client, text, ack));
  EXPECT_FALSE(ack.ok);
  EXPECT_EQ(ack.req.text(), "\"a\"");
  EXPECT_NE(ack.error.find("\"data\" must be a string"), std::string_view::npos) << text;
}

// Decoded strings go into a small buffer on the stack; a request whose
// escaped strings outgrow it is read again into one of its own size.
TEST(WsJsonHostile, LongEscapedDataIsDecodedWhole) {
  RunningServer server;
  SseSubscriber subscriber(server.port(), "/sse/quotes");
  ASSERT_TRUE(subscriber.opened());
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  std::string escaped;
  for (int i = 0; i < 6000; ++i) escaped += "\\\"";
  client.send_raw(text_frame(R"({"op":"publish","topic":"quotes","req":1,"data":")" + escaped + "\"}"));
  std::string text;
  wsjson::ServerMessage ack;
  ASSERT_TRUE(read_ack(client, text, ack));
  EXPECT_TRUE(ack.ok) << text;
  ASSERT_TRUE(subscriber.wait_for(1));
  EXPECT_EQ(subscriber.events()[0].data, std::string(6000, '"'));
}

TEST(WsJsonHostile, AnEmptyTopicIsRefusedEveryTime) {
  RunningServer server;
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  std::string text;
  wsjson::ServerMessage ack;
  for (int i = 0; i < 2; ++i) {
    client.send_raw(text_frame(R"({"op":"subscribe","topic":"","req":1})"));
    ASSERT_TRUE(read_ack(client, text, ack));
    EXPECT_FALSE(ack.ok) << text;
    EXPECT_NE(ack.error.find("bad topic name"), std::string_view::npos) << text;
  }
}

// Six clients that never read, each sending 20 requests whose `req` is a
// string of 1,000,000 bytes: the answers are short refusals, so the pool
// keeps room and publishing goes on for everyone.
TEST(WsJsonHostile, UnreadRepliesWithHugeReqsDoNotStopPublishing) {
  RunningServer server;
  const std::uint16_t port = server.port();
  SseSubscriber subscriber(port, "/sse/news");
  ASSERT_TRUE(subscriber.opened());
  const std::string request =
      text_frame(R"({"op":"publish","topic":"news","data":"x","req":")" + std::string(1000000, 'r') + "\"}");
  std::vector<std::unique_ptr<WsTestClient>> hoarders;
  for (int c = 0; c < 6; ++c) {
    hoarders.push_back(std::make_unique<WsTestClient>(port, 4096));
    ASSERT_TRUE(hoarders.back()->open("/ws"));
  }
  for (int i = 0; i < 20; ++i) {
    for (auto& h : hoarders) h->send_raw(request);
  }
  TestClient publisher(port);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(publish(publisher, "/pub/news", "event " + std::to_string(i)), 200) << i;
  ASSERT_TRUE(subscriber.wait_for(50));
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(subscriber.events()[static_cast<std::size_t>(i)].data, "event " + std::to_string(i));
  }
}

// Sends `requests` from a thread of its own while the test reads: the
// server answers each in order, whatever the client has yet to read.
class Pipeline {
 public:
  Pipeline(WsTestClient& client, std::string requests)
      : thread_([&client, bytes = std::move(requests)] { client.send_raw(bytes); }) {}
  ~Pipeline() { thread_.join(); }

 private:
  std::thread thread_;
};

TEST(WsJsonHostile, PipelinedPublishesAreEachAcknowledged) {
  RunningServer server;
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  std::string requests;
  for (int i = 1; i <= 200; ++i) {
    requests += text_frame(R"({"op":"publish","topic":"p","data":"d)" + std::to_string(i) + R"(","req":)" +
                           std::to_string(i) + "}");
  }
  const Pipeline pipeline(client, std::move(requests));
  std::string text;
  wsjson::ServerMessage ack;
  for (int i = 1; i <= 200; ++i) {
    ASSERT_TRUE(read_ack(client, text, ack)) << "ack " << i;
    EXPECT_TRUE(ack.ok) << text;
    EXPECT_EQ(ack.req.text(), std::to_string(i));
    EXPECT_EQ(seq_of(ack.id), static_cast<std::uint64_t>(i)) << text;
  }
}

TEST(WsJsonHostile, PipelinedSubscribesAreEachAnswered) {
  RunningServer server;
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  constexpr int kRequests = 10000;
  constexpr int kAllowed = 64;  // topics.max_per_connection
  std::string requests;
  for (int i = 0; i < kRequests; ++i) {
    requests += text_frame(R"({"op":"subscribe","topic":"t)" + std::to_string(i) + R"(","req":)" +
                           std::to_string(i) + "}");
  }
  const Pipeline pipeline(client, std::move(requests));
  std::string text;
  wsjson::ServerMessage ack;
  for (int i = 0; i < kRequests; ++i) {
    ASSERT_TRUE(read_ack(client, text, ack)) << "ack " << i;
    ASSERT_EQ(ack.req.text(), std::to_string(i));
    ASSERT_EQ(ack.ok, i < kAllowed) << text;
    if (i >= kAllowed) {
      ASSERT_EQ(ack.error, "too many topics on this connection (topics.max_per_connection)");
    }
  }
}

// A client that sends without ever reading: once its unread answers fill
// what it may leave unread, the server stops reading it, and closes it when
// that lasts past ws.pong_timeout_ms. Publishing goes on meanwhile.
TEST(WsJsonHostile, AClientThatNeverReadsIsPausedThenClosed) {
  server::Config config;
  config.ws.pong_timeout_ms = 300;
  config.tcp_send_buffer = 4096;
  RunningServer server(config);
  const std::uint16_t port = server.port();
  WsTestClient hoarder(port, 4096);
  ASSERT_TRUE(hoarder.open("/ws"));
  std::string requests;
  const std::string req(60, 'q');
  for (int i = 0; i < 100000; ++i) requests += text_frame(R"({"op":"nope","topic":"t","req":")" + req + "\"}");
  std::thread sender([&] { hoarder.send_raw(requests); });  // returns once sent, or once the server closes
  TestClient publisher(port);
  EXPECT_EQ(publish(publisher, "/pub/any", "still publishing"), 200);
  const bool closed = hoarder.hung_up(20s);
  if (!closed) ::shutdown(hoarder.socket().fd(), SHUT_RDWR);  // the sender must not outlive the test
  sender.join();
  EXPECT_TRUE(closed);
  EXPECT_EQ(publish(publisher, "/pub/any", "after"), 200);
}

}  // namespace
}  // namespace sluice::test::ws
