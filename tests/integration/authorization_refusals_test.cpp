// What a client refused by Server::authorize can still make the server do,
// through real sockets: bytes sent right behind a refused request or
// upgrade, refusals in a flood, an authorizer or on_open that throws, a
// reason that tries to smuggle a header. None of it publishes, subscribes,
// crashes the loop, or costs the allowed clients their events.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using server::Action;
using server::AuthDecision;
using server::AuthRequest;
using ws::WsTestClient;

// Allows "Bearer good" everything but topics named "secret*"; refuses a
// request without it (401) once it names a topic. Anyone may publish to
// "inbox", nobody may read it. Topic "boom" makes the
// authorizer throw; "bang" makes it throw something that is no exception.
AuthDecision gate(const AuthRequest& r) {
  if (r.topic == "boom") throw std::runtime_error("key server unreachable: token=abc");
  if (r.topic == "bang") throw 42;
  if (r.action == Action::connect) return AuthDecision::allow();
  if (r.topic == "inbox") {  // anyone may drop a message in, nobody may read
    return r.action == Action::publish ? AuthDecision::allow() : AuthDecision::deny(403, "write only");
  }
  if (r.headers.get("Authorization") != "Bearer good") return AuthDecision::deny(401, "token required");
  if (r.topic.starts_with("secret")) return AuthDecision::deny(403, "not yours");
  return AuthDecision::allow();
}

server::Config one_loop() {
  server::Config config;
  config.threads = 1;  // the refused and the allowed clients share one loop
  return config;
}

// An upgrade request with a fixed key, for sending frames in the same write.
std::string upgrade_text(std::string_view path, std::string_view extra_headers = {}) {
  return "GET " + std::string(path) +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
         std::string(extra_headers) + "\r\n";
}

// An SSE subscriber allowed on `topic`.
std::unique_ptr<TestClient> watch(std::uint16_t port, std::string_view topic) {
  auto watcher = std::make_unique<TestClient>(port);
  watcher->send("GET /sse/" + std::string(topic) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\n\r\n");
  EXPECT_TRUE(watcher->read_until_contains("retry:"));
  return watcher;
}

// Publishes a marker and waits for `watcher` to have it: anything published
// before the marker has reached it by then.
void sync_on_marker(RunningServer& server, TestClient& watcher, std::string_view topic) {
  ASSERT_EQ(server.server().publish(topic, "marker").status, server::PublishStatus::ok);
  ASSERT_TRUE(watcher.read_until_contains("data: marker"));
}

TEST(AuthorizationRefusals, FramesRightBehindARefusedTopicUpgradeAreNeverPublished) {
  RunningServer server(one_loop(), [](server::Server& s) { s.authorize(gate); });
  const auto watcher = watch(server.port(), "news");
  TestClient attacker(server.port());
  attacker.send(upgrade_text("/ws/news") + ws::wire({.payload = "forged one"}) + ws::wire({.payload = "forged two"}));
  ASSERT_TRUE(attacker.read_until_contains("401 token required"));
  ASSERT_TRUE(attacker.read_until_closed());
  EXPECT_EQ(attacker.buffer().find("HTTP/1.1 101"), 0u);
  sync_on_marker(server, *watcher, "news");
  EXPECT_EQ(watcher->buffer().find("forged"), std::string::npos) << watcher->buffer();
}

TEST(AuthorizationRefusals, ARefusedStreamReadsNothingEvenWhereItsClientMayPublish) {
  RunningServer server(one_loop(), [](server::Server& s) { s.authorize(gate); });
  TestClient attacker(server.port());
  attacker.send(upgrade_text("/ws/inbox") + ws::wire({.payload = "forged"}));
  ASSERT_TRUE(attacker.read_until_contains("403 write only"));
  ASSERT_TRUE(attacker.read_until_closed());
  // Publishing to "inbox" is allowed, so only the refused stream's end kept
  // the frame out: the first event the topic ever gets is this one.
  const server::PublishResult first = server.server().publish("inbox", "first");
  ASSERT_EQ(first.status, server::PublishStatus::ok);
  EXPECT_EQ(first.id, 1u);
}

TEST(AuthorizationRefusals, FramesRightBehindARefusedPublisherUpgradeAreNeverPublished) {
  RunningServer server(one_loop(), [](server::Server& s) { s.authorize(gate); });
  const auto watcher = watch(server.port(), "news");
  TestClient attacker(server.port());
  attacker.send(upgrade_text("/pub/news") + ws::wire({.payload = "forged"}));
  ASSERT_TRUE(attacker.read_until_contains("401 token required"));
  ASSERT_TRUE(attacker.read_until_closed());
  sync_on_marker(server, *watcher, "news");
  EXPECT_EQ(watcher->buffer().find("forged"), std::string::npos) << watcher->buffer();
  EXPECT_EQ(server.server().stats().denied, 1u);
}

TEST(AuthorizationRefusals, ARequestPipelinedBehindARefusalIsNotServed) {
  RunningServer server(one_loop(), [](server::Server& s) { s.authorize(gate); });
  const auto watcher = watch(server.port(), "news");
  TestClient attacker(server.port());
  attacker.send(
      "POST /pub/secret HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\nContent-Length: 1\r\n\r\nx"
      "POST /pub/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\nContent-Length: 6\r\n\r\nforged");
  const HttpReply refused = read_reply(attacker);
  EXPECT_EQ(refused.status, 403);
  ASSERT_TRUE(attacker.read_until_closed());
  EXPECT_EQ(attacker.buffer(), "");  // no second reply
  sync_on_marker(server, *watcher, "news");
  EXPECT_EQ(watcher->buffer().find("forged"), std::string::npos) << watcher->buffer();
}

TEST(AuthorizationRefusals, AJsonClientRefusedMidStreamKeepsWhatItWasAllowed) {
  RunningServer server(one_loop(), [](server::Server& s) { s.authorize(gate); });
  WsTestClient client(server.port());
  ASSERT_EQ(client.upgrade({.path = "/ws", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
  client.send({.payload = R"({"op":"subscribe","topic":"news","req":1})"});
  std::optional<ws::ServerFrame> ack = client.read_message();
  ASSERT_TRUE(ack);
  // A granted subscribe is acknowledged with the topic's newest id.
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":1,"ok":true,"last_id":")", 0), 0u) << ack->payload;
  // Many refused requests, a few at a time (acks share the control lane's
  // room): each answered, none of them served.
  constexpr int kRefused = 200;
  constexpr int kBatch = 8;
  for (int i = 0; i < kRefused; i += kBatch) {
    for (int j = i; j < i + kBatch; ++j) {
      client.send({.payload = R"({"op":"subscribe","topic":"secret.)" + std::to_string(j) + R"(","req":2})"});
    }
    for (int j = i; j < i + kBatch; ++j) {
      ack = client.read_message();
      ASSERT_TRUE(ack) << j;
      ASSERT_EQ(ack->payload, R"({"op":"ack","req":2,"ok":false,"error":"403 not yours"})");
    }
  }
  EXPECT_EQ(server.server().stats().denied, static_cast<std::uint64_t>(kRefused));
  ASSERT_EQ(server.server().publish("secret.7", "not for you").status, server::PublishStatus::ok);
  ASSERT_EQ(server.server().publish("news", "still yours").status, server::PublishStatus::ok);
  const std::optional<ws::ServerFrame> event = client.read_message();
  ASSERT_TRUE(event);
  EXPECT_NE(event->payload.find("still yours"), std::string::npos) << event->payload;
  EXPECT_EQ(server.server().publish("secret.7", "x").subscribers, 0u);
}

TEST(AuthorizationRefusals, AnAuthorizerThatThrowsRefusesAsTheServersFailureAndTheLoopGoesOn) {
  RunningServer server(one_loop(), [](server::Server& s) { s.authorize(gate); });
  const auto watcher = watch(server.port(), "news");

  TestClient poster(server.port());
  poster.send("POST /pub/boom HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\nContent-Length: 1\r\n\r\nx");
  const HttpReply refused = read_reply(poster);
  EXPECT_EQ(refused.status, 500);
  EXPECT_EQ(refused.body, "authorization failed\n");  // never the exception's text

  WsTestClient topic(server.port());
  ASSERT_EQ(topic.upgrade({.path = "/ws/bang", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
  const std::optional<ws::ServerFrame> close = topic.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 1011);
  EXPECT_EQ(close->payload.substr(2), "500 authorization failed");

  WsTestClient json(server.port());
  ASSERT_EQ(json.upgrade({.path = "/ws", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
  json.send({.payload = R"({"op":"publish","topic":"boom","data":"d","req":5})"});
  const std::optional<ws::ServerFrame> ack = json.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload, R"({"op":"ack","req":5,"ok":false,"error":"500 authorization failed"})");

  EXPECT_EQ(server.server().stats().denied, 3u);
  EXPECT_EQ(http_request(server.port(), "GET", "/healthz").status, 200);
  sync_on_marker(server, *watcher, "news");
}

TEST(AuthorizationRefusals, ARefusedWebSocketNeverOpensForTheApplication) {
  std::atomic<int> opens{0};
  std::atomic<int> closes{0};
  RunningServer server(one_loop(), [&](server::Server& s) {
    s.authorize(gate);
    s.on_open([&](server::ConnectionRef, std::string_view) { ++opens; });
    s.on_close([&](server::ConnectionRef) { ++closes; });
  });
  {
    WsTestClient refused(server.port());
    ASSERT_EQ(refused.upgrade({.path = "/ws/secret", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
    EXPECT_EQ(refused.read_close(), 4403);
  }
  WsTestClient allowed(server.port());
  ASSERT_EQ(allowed.upgrade({.path = "/ws/news", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
  allowed.send({.opcode = ws::kClose, .payload = ws::close_payload(1000)});
  EXPECT_EQ(allowed.read_close(), 1000);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while ((closes < 1 || server.server().stats().streams != 0) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(opens, 1);
  EXPECT_EQ(closes, 1);
}

TEST(AuthorizationRefusals, AnOnOpenThatThrowsClosesItsWebSocketWith1011) {
  RunningServer server(one_loop(), [](server::Server& s) {
    s.on_open([](server::ConnectionRef, std::string_view path) {
      if (path == "/ws/boom") throw std::runtime_error("application bug");
    });
  });
  WsTestClient failed(server.port());
  ASSERT_TRUE(failed.open("/ws/boom"));
  EXPECT_EQ(failed.read_close(), 1011);
  WsTestClient fine(server.port());
  ASSERT_TRUE(fine.open("/ws/news"));
  ASSERT_EQ(server.server().publish("news", "hello").status, server::PublishStatus::ok);
  const std::optional<ws::ServerFrame> event = fine.read_message();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->payload, "hello");
}

TEST(AuthorizationRefusals, AReasonCannotAddAHeaderNorOutgrowItsLimit) {
  RunningServer server(one_loop(), [](server::Server& s) {
    s.authorize([](const AuthRequest&) {
      return AuthDecision::deny(401, "no\r\nSet-Cookie: session=stolen\r\n" + std::string(300, 'a'));
    });
  });
  const HttpReply reply = http_request(server.port(), "GET", "/healthz");
  EXPECT_EQ(reply.status, 401);
  EXPECT_EQ(reply.head.find("Set-Cookie"), std::string::npos) << reply.head;
  EXPECT_NE(reply.head.find("\r\nWWW-Authenticate: Bearer\r\n"), std::string::npos) << reply.head;
  EXPECT_EQ(reply.body.substr(0, 34), "no??Set-Cookie: session=stolen??aa");
  EXPECT_EQ(reply.body.size(), AuthDecision::kMaxReason + 1);  // and the newline
}

TEST(AuthorizationRefusals, A401CarriesTheApplicationsChallenge) {
  RunningServer server(one_loop(), [](server::Server& s) {
    s.authorize([](const AuthRequest&) {
      return AuthDecision::deny(401, "token expired").with_challenge(R"(Bearer realm="app", error="invalid_token")");
    });
  });
  const HttpReply reply = http_request(server.port(), "GET", "/sse/news");
  EXPECT_EQ(reply.status, 401);
  EXPECT_NE(reply.head.find("\r\nWWW-Authenticate: Bearer realm=\"app\", error=\"invalid_token\"\r\n"),
            std::string::npos)
      << reply.head;
}

}  // namespace
}  // namespace sluice::test
