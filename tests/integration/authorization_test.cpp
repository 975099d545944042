// Server::authorize through real sockets: what the authorizer is shown
// (action, method, path, topic, headers, the peer's address, the
// connection's data) and how each kind of refusal reaches the client: an
// HTTP status with the reason, a failed /ws ack, a WebSocket closed with
// 4000 + the status; credentials that expire (until) and a /ws refresh. It
// is asked per request, subscription and publish, never per event.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using server::Action;
using server::AuthDecision;
using server::AuthRequest;
using ws::WsTestClient;

// What the authorizer saw, copied out of the call.
struct Seen {
  Action action;
  std::string method, path, query, topic, peer, authorization, cookie, origin, user;
};

// Allows what a "Bearer good" token asks for, except topics named
// "secret*" (403) and publishing to "readonly*" (403); refuses anything
// without a token (401). At connect it keeps the token's subject as the
// connection's data.
class Gate {
 public:
  AuthDecision operator()(const AuthRequest& r) {
    const std::string_view token = r.headers.get("Authorization");
    if (r.action == Action::connect && token == "Bearer good") r.user = std::make_shared<std::string>("alice");
    const auto* user = static_cast<const std::string*>(r.user.get());
    {
      const std::lock_guard lock(mutex_);
      seen_.push_back({r.action, std::string(r.method), std::string(r.path), std::string(r.query),
                       std::string(r.topic), std::string(r.peer), std::string(token),
                       std::string(r.headers.get("cookie")), std::string(r.headers.get("Origin")),
                       user != nullptr ? *user : ""});
    }
    if (r.action == Action::connect) return AuthDecision::allow();
    if (token != "Bearer good") return AuthDecision::deny(401, "token required");
    if (r.topic.starts_with("secret")) return AuthDecision::deny(403, "not yours");
    if (r.action == Action::publish && r.topic.starts_with("readonly")) return AuthDecision::deny(403, "read only");
    return AuthDecision::allow();
  }
  std::vector<Seen> seen() {
    const std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  std::mutex mutex_;
  std::vector<Seen> seen_;
};

struct AuthorizationTest : testing::Test {
  AuthorizationTest()
      : running(one_loop(), [this](server::Server& s) { s.authorize([this](const AuthRequest& r) { return gate(r); }); }) {}
  static server::Config one_loop() {
    server::Config config;
    config.threads = 1;
    return config;
  }
  // One request with these header lines on a fresh connection; the reply,
  // and whether the server closed the connection after it.
  HttpReply request(const std::string& method, const std::string& target, const std::string& headers,
                    const std::string& body = {}) {
    TestClient client(running.port());
    client.send(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "Content-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body);
    return read_reply(client);
  }

  Gate gate;
  RunningServer running;
};

TEST_F(AuthorizationTest, AnSseSubscriptionIsShownTheRequestAndRefusedWithItsStatus) {
  const HttpReply refused = request("GET", "/sse/news?x=1", "Cookie: session=7\r\nOrigin: http://127.0.0.1\r\n");
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(refused.body, "token required\n");
  EXPECT_NE(refused.head.find("Connection: close"), std::string::npos) << refused.head;

  const std::vector<Seen> seen = gate.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].action, Action::connect);
  EXPECT_EQ(seen[0].topic, "");
  EXPECT_EQ(seen[1].action, Action::subscribe);
  EXPECT_EQ(seen[1].method, "GET");
  EXPECT_EQ(seen[1].path, "/sse/news");
  EXPECT_EQ(seen[1].query, "x=1");
  EXPECT_EQ(seen[1].topic, "news");
  EXPECT_EQ(seen[1].cookie, "session=7");
  EXPECT_EQ(seen[1].origin, "http://127.0.0.1");  // the server's own: allowed with auth on
  EXPECT_TRUE(seen[1].peer.starts_with("127.0.0.1:")) << seen[1].peer;

  SseSubscriber allowed(running.port(), "/sse/news");  // no token: refused too
  EXPECT_FALSE(allowed.opened(2s));
}

TEST_F(AuthorizationTest, EveryTopicOfAStreamIsCheckedBeforeItsHeadGoesOut) {
  TestClient client(running.port());
  client.send("GET /sse?topic=news&topic=secret.plans HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\n\r\n");
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 403);
  EXPECT_EQ(reply.body, "not yours\n");
}

TEST_F(AuthorizationTest, TheConnectionsDataSetAtConnectIsSeenByItsLaterChecks) {
  TestClient client(running.port());
  client.send("GET /sse/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\n\r\n");
  ASSERT_TRUE(client.read_until_contains("retry:"));
  const std::vector<Seen> seen = gate.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].action, Action::subscribe);
  EXPECT_EQ(seen[1].user, "alice");
}

TEST_F(AuthorizationTest, APublishIsRefusedBeforeTheHubSeesIt) {
  const HttpReply refused = request("POST", "/pub/secret", "Authorization: Bearer good\r\n", "x");
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body, "not yours\n");
  EXPECT_EQ(request("POST", "/pub/news", "Authorization: Bearer good\r\n", "x").status, 200);
  const std::vector<Seen> seen = gate.seen();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[1].action, Action::publish);
  EXPECT_EQ(seen[1].topic, "secret");
  EXPECT_EQ(seen[1].method, "POST");
}

TEST_F(AuthorizationTest, TheJsonProtocolAnswersARefusalWithAFailedAck) {
  WsTestClient client(running.port());
  ASSERT_EQ(client.upgrade({.path = "/ws", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
  client.send({.payload = R"({"op":"subscribe","topic":"secret.x","req":1})"});
  std::optional<ws::ServerFrame> ack = client.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload, R"({"op":"ack","req":1,"ok":false,"error":"403 not yours"})");
  client.send({.payload = R"({"op":"publish","topic":"secret.x","data":"d","req":2})"});
  ack = client.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload, R"({"op":"ack","req":2,"ok":false,"error":"403 not yours"})");
  client.send({.payload = R"({"op":"subscribe","topic":"news","req":3})"});
  ack = client.read_message();
  ASSERT_TRUE(ack);
  // A granted subscribe is acknowledged with the topic's newest id.
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":3,"ok":true,"last_id":")", 0), 0u) << ack->payload;
  // The checks after the upgrade were shown the upgrade request's headers.
  const std::vector<Seen> seen = gate.seen();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[3].action, Action::subscribe);
  EXPECT_EQ(seen[3].path, "/ws");
  EXPECT_EQ(seen[3].authorization, "Bearer good");
  EXPECT_EQ(seen[3].user, "alice");
}

TEST_F(AuthorizationTest, ATopicStreamRefusedAfterItsUpgradeIsClosedWith4401AndTheReason) {
  WsTestClient client(running.port());
  ASSERT_EQ(client.upgrade({.path = "/ws/secret"}).status, 101);
  const std::optional<ws::ServerFrame> close = client.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->opcode, ws::kClose);
  EXPECT_EQ(close->close_code(), 4401);
  EXPECT_EQ(close->payload.substr(2), "401 token required");
}

TEST_F(AuthorizationTest, ATopicStreamIsCheckedForPublishingAtItsFirstMessageOnly) {
  TestClient watcher(running.port());
  watcher.send("GET /sse/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\n\r\n");
  ASSERT_TRUE(watcher.read_until_contains("retry:"));
  WsTestClient client(running.port());
  ASSERT_EQ(client.upgrade({.path = "/ws/news", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
  client.send({.payload = "one"});
  client.send({.payload = "two"});
  ASSERT_TRUE(watcher.read_until_contains("data: two"));
  std::size_t publish_checks = 0;
  for (const Seen& s : gate.seen()) publish_checks += s.action == Action::publish;
  EXPECT_EQ(publish_checks, 1u);
}

TEST_F(AuthorizationTest, ATopicStreamRefusedPublishingIsClosedWith4403AtItsFirstMessage) {
  WsTestClient client(running.port());
  ASSERT_EQ(client.upgrade({.path = "/ws/readonly.feed", .extra_headers = "Authorization: Bearer good\r\n"}).status,
            101);
  ASSERT_EQ(running.server().publish("readonly.feed", "to the reader").status, server::PublishStatus::ok);
  const std::optional<ws::ServerFrame> event = client.read_message();
  ASSERT_TRUE(event);  // subscribing was allowed
  EXPECT_EQ(event->payload, "to the reader");
  client.send({.payload = "not allowed"});
  const std::optional<ws::ServerFrame> close = client.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 4403);
  EXPECT_EQ(close->payload.substr(2), "403 read only");
}

TEST_F(AuthorizationTest, AWebSocketPublisherRefusedIsClosedWith4403) {
  WsTestClient client(running.port());
  ASSERT_EQ(client.upgrade({.path = "/pub/secret", .extra_headers = "Authorization: Bearer good\r\n"}).status, 101);
  const std::optional<ws::ServerFrame> close = client.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 4403);
  EXPECT_EQ(close->payload.substr(2), "403 not yours");
}

TEST_F(AuthorizationTest, EventsAreNeverCheckedOneByOne) {
  TestClient subscriber(running.port());
  subscriber.send("GET /sse/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer good\r\n\r\n");
  ASSERT_TRUE(subscriber.read_until_contains("retry:"));
  const std::size_t before = gate.seen().size();
  for (int i = 0; i < 100; ++i) ASSERT_EQ(running.server().publish("news", "e").status, server::PublishStatus::ok);
  ASSERT_TRUE(subscriber.read_until([](const std::string& b) {
    std::size_t n = 0;
    for (std::size_t at = b.find("data: e"); at != std::string::npos; at = b.find("data: e", at + 1)) ++n;
    return n == 100;
  }));
  EXPECT_EQ(gate.seen().size(), before);
}

TEST(Authorization, ARequestRefusedAtConnectGetsTheStatusAndRetryAfter) {
  RunningServer server({}, [](server::Server& s) {
    s.authorize([](const AuthRequest& r) {
      return r.path == "/healthz" ? AuthDecision::allow() : AuthDecision::deny(429, "slow down", 2);
    });
  });
  EXPECT_EQ(http_request(server.port(), "GET", "/healthz").status, 200);
  const HttpReply reply = http_request(server.port(), "POST", "/pub/news", "x");
  EXPECT_EQ(reply.status, 429);
  EXPECT_EQ(reply.body, "slow down\n");
  EXPECT_NE(reply.head.find("Retry-After: 2\r\n"), std::string::npos) << reply.head;
  EXPECT_EQ(server.server().stats().denied, 1u);
}

// An application's own credentials that expire: until() on connect ends
// the stream then (4401), a refresh is shown its token and may move the
// end, and each topic the refreshed stream follows is asked again (held).
TEST(Authorization, UntilEndsAStreamAndARefreshIsShownItsTokenAndMovesTheEnd) {
  struct Asked {
    Action action;
    std::string topic, token;
    bool held;
  };
  std::mutex mutex;
  std::vector<Asked> asked;
  const auto first_end = std::chrono::system_clock::now() + 800ms;
  RunningServer server(AuthorizationTest::one_loop(), [&](server::Server& s) {
    s.authorize([&](const AuthRequest& r) {
      {
        const std::lock_guard lock(mutex);
        asked.push_back({r.action, std::string(r.topic), std::string(r.token), r.held});
      }
      if (r.action == Action::connect) return AuthDecision::allow().until(first_end);
      if (r.action == Action::refresh) {
        if (r.token != "fresh") return AuthDecision::deny(401, "bad token");
        return AuthDecision::allow().until(std::chrono::system_clock::now() + 60s);
      }
      return r.held && r.topic == "gone" ? AuthDecision::deny(403, "no longer") : AuthDecision::allow();
    });
  });
  WsTestClient kept(server.port());
  ASSERT_EQ(kept.upgrade({.path = "/ws"}).status, 101);
  WsTestClient left(server.port());
  ASSERT_EQ(left.upgrade({.path = "/ws/news"}).status, 101);
  for (const char* topic : {"news", "gone"}) {
    kept.send({.payload = std::string(R"({"op":"subscribe","topic":")") + topic + R"("})"});
    const std::optional<ws::ServerFrame> ack = kept.read_message();
    ASSERT_TRUE(ack && ack->payload.starts_with(R"({"op":"ack","req":null,"ok":true)"));
  }
  kept.send({.payload = R"({"op":"refresh","token":"fresh","req":1})"});
  std::optional<ws::ServerFrame> reply = kept.read_message();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->payload, R"({"op":"ack","req":1,"ok":true})");
  reply = kept.read_message();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->payload, R"({"op":"revoked","topic":"gone","reason":"403 no longer"})");

  const std::optional<ws::ServerFrame> close = left.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 4401);
  EXPECT_EQ(close->payload.substr(2), "401 token expired");
  EXPECT_GE(std::chrono::system_clock::now(), first_end - 20ms);
  // Past the first end, the refreshed connection still gets news, and
  // nothing of the topic it lost.
  ASSERT_EQ(server.server().publish("gone", "lost").status, server::PublishStatus::ok);
  ASSERT_EQ(server.server().publish("news", "still here").status, server::PublishStatus::ok);
  reply = kept.read_message();
  ASSERT_TRUE(reply);
  EXPECT_NE(reply->payload.find(R"("topic":"news")"), std::string::npos) << reply->payload;

  const std::lock_guard lock(mutex);
  std::vector<std::string> held;
  for (const Asked& a : asked) {
    if (a.action == Action::refresh) {
      EXPECT_EQ(a.token, "fresh");
    }
    if (a.held) held.push_back(a.topic);
  }
  EXPECT_EQ(held, (std::vector<std::string>{"news", "gone"}));
}

TEST(Authorization, AStatusOtherThan401Or403Or429IsSentAs403) {
  RunningServer server({}, [](server::Server& s) {
    s.authorize([](const AuthRequest&) { return AuthDecision::deny(200, "not a refusal status"); });
  });
  EXPECT_EQ(http_request(server.port(), "GET", "/healthz").status, 403);
}

}  // namespace
}  // namespace sluice::test
