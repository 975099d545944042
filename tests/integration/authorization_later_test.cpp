// Server::authorize with decisions given later (AuthRequest::answer_later,
// AuthReply), through real sockets: the client's request, stream or ack
// waits without holding up the loop, then gets the decision; requests
// behind it wait their turn; a decision that never comes is a 503 at
// auth.callback_timeout_ms; a stream's client that leaves first withdraws
// its question (run under ASan in the debug build: nothing freed is
// touched), a publish's that only ended its side is answered.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "eventually.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using server::Action;
using server::AuthDecision;
using server::AuthReply;
using server::AuthRequest;
using ws::WsTestClient;

// Topics named "later*" are decided later, when the test says so: a timer
// on the loop gives the decision the test set in `release` to every
// question waiting; "wlater*" is decided later for publishing only. "now*" is decided through the handle inside the call;
// "broken*" answers later without taking a handle. Anything else: allowed.
class LaterGate {
 public:
  AuthDecision operator()(const AuthRequest& r) {
    if (r.topic.starts_with("now")) {
      const AuthReply reply = r.answer_later();
      (void)reply(AuthDecision::deny(403, "decided during the call"));
      return AuthDecision::later();
    }
    if (r.topic.starts_with("broken")) return AuthDecision::later();
    const bool later = r.topic.starts_with("later") || (r.topic.starts_with("wlater") && r.action == Action::publish);
    if (!later) return AuthDecision::allow();
    AuthReply reply = r.answer_later();
    if (!reply) return AuthDecision::deny(503, "cannot wait here");
    reply.on_withdrawn([this] { ++withdrawn; });
    waiting_.push_back(reply);
    last.store(std::make_shared<AuthReply>(reply));
    ++asked;
    return AuthDecision::later();
  }

  // On the loop, every few milliseconds.
  void tick() {
    const int status = release.exchange(0);
    if (status == 0) return;
    for (const AuthReply& reply : waiting_) {
      if (reply(status == 200 ? AuthDecision::allow() : AuthDecision::deny(status, "decided later"))) ++given;
    }
    waiting_.clear();
  }

  std::atomic<int> asked{0};
  std::atomic<int> withdrawn{0};
  std::atomic<int> given{0};
  std::atomic<int> release{0};  // the status to give next tick: 200 allows
  std::atomic<std::shared_ptr<AuthReply>> last;

 private:
  std::vector<AuthReply> waiting_;  // the loop's only
};

// True when `client` has been sent something by now (a look, not a wait).
bool sent_anything(TestClient& client) {
  return client.read_until([](const std::string& buffer) { return !buffer.empty(); }, 1ms);
}

struct AuthorizationLater : testing::Test {
  explicit AuthorizationLater(std::int64_t timeout_ms = 10000)
      : running(config(timeout_ms), [this](server::Server& s) {
          s.authorize([this](const AuthRequest& r) { return gate(r); });
          s.every(std::chrono::milliseconds(5), [this] { gate.tick(); });
        }) {}
  static server::Config config(std::int64_t timeout_ms) {
    server::Config c;
    c.threads = 1;
    c.auth.callback_timeout_ms = timeout_ms;
    return c;
  }
  // Sets the decision and waits until the loop has given it.
  void decide(int status) {
    const int before = gate.given.load();
    gate.release = status;
    ASSERT_TRUE(eventually([&] { return gate.given.load() > before; }));
  }

  LaterGate gate;
  RunningServer running;
};

TEST_F(AuthorizationLater, AnSseStreamWaitsForItsDecisionWhileTheLoopServesOthers) {
  SseSubscriber waiting(running.port(), "/sse/later.news");
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  // The same loop serves another stream and a publish meanwhile.
  SseSubscriber other(running.port(), "/sse/news");
  ASSERT_TRUE(other.opened());
  TestClient publisher(running.port());
  EXPECT_EQ(publish(publisher, "/pub/news", "meanwhile"), 200);
  ASSERT_TRUE(other.wait_for(1));
  EXPECT_FALSE(sent_anything(waiting.client())) << waiting.client().buffer();
  decide(200);
  EXPECT_TRUE(waiting.opened());
}

TEST_F(AuthorizationLater, ARefusalGivenLaterIsTheClientsStatus) {
  TestClient client(running.port());
  client.send("GET /sse/later.news HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  decide(403);
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 403);
  EXPECT_EQ(reply.body, "decided later\n");
  EXPECT_EQ(running.server().stats().denied, 1u);
}

TEST_F(AuthorizationLater, RequestsPipelinedBehindAWaitingOneAreAnsweredAfterItInOrder) {
  TestClient client(running.port());
  client.send(
      "POST /pub/later.t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\nx"
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  EXPECT_FALSE(sent_anything(client)) << client.buffer();  // /healthz waits its turn
  decide(200);
  ASSERT_TRUE(client.read_until_contains("ok\n"));
  const std::string& replies = client.buffer();
  const std::size_t published = replies.find(R"({"topic":"later.t")");
  ASSERT_NE(published, std::string::npos) << replies;
  EXPECT_LT(published, replies.find("ok\n")) << replies;
  EXPECT_EQ(gate.asked.load(), 1);  // routed again, not asked again
}

// A FIN ends the client's requests, not its reading: a publish waiting for
// its decision is answered when it comes, then the connection closes.
TEST_F(AuthorizationLater, APublishWhoseClientEndedItsSideIsAnsweredWhenDecided) {
  TestClient client(running.port());
  client.send("POST /pub/later.t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\nx");
  client.end_sending();
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  decide(200);
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 200) << reply.head;
  EXPECT_NE(reply.body.find(R"({"topic":"later.t")"), std::string::npos) << reply.body;
  EXPECT_TRUE(client.read_until_closed());
  EXPECT_EQ(gate.withdrawn.load(), 0);
}

TEST_F(AuthorizationLater, AWsAckWaitsAndTheRequestsBehindItAreReadAfter) {
  WsTestClient json(running.port());
  ASSERT_EQ(json.upgrade({.path = "/ws"}).status, 101);
  json.send({.payload = R"({"op":"subscribe","topic":"later.a","req":1})"});
  json.send({.payload = R"({"op":"subscribe","topic":"plain","req":2})"});
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  EXPECT_FALSE(sent_anything(json.socket())) << json.socket().buffer();
  decide(200);
  std::optional<ws::ServerFrame> ack = json.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":1,"ok":true)", 0), 0u) << ack->payload;
  ack = json.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":2,"ok":true)", 0), 0u) << ack->payload;
}

// The same when the client's FIN follows its requests: they are answered
// once decided, then the connection closes. Before, the FIN closed it at
// once, the requests neither answered nor acted on.
TEST_F(AuthorizationLater, WsRequestsSentBeforeTheFinAreAnsweredOnceDecided) {
  WsTestClient json(running.port());
  ASSERT_EQ(json.upgrade({.path = "/ws"}).status, 101);
  json.send({.payload = R"({"op":"subscribe","topic":"later.a","req":1})"});
  json.send({.payload = R"({"op":"publish","topic":"plain","data":"x","req":2})"});
  json.socket().end_sending();
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  decide(200);
  for (const std::string_view req : {"1", "2"}) {
    const std::optional<ws::ServerFrame> ack = json.read_message();
    ASSERT_TRUE(ack) << req;
    EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":)" + std::string(req) + R"(,"ok":true)", 0), 0u) << ack->payload;
  }
  EXPECT_TRUE(json.socket().read_until_closed());
}

TEST_F(AuthorizationLater, AWebSocketUpgradeWaitsThenOpensOrIsClosedWithTheStatus) {
  WsTestClient allowed(running.port());
  auto opened = std::async(std::launch::async, [&] { return allowed.upgrade({.path = "/ws/later.x"}).status; });
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  decide(200);
  EXPECT_EQ(opened.get(), 101);

  WsTestClient refused(running.port());
  auto answered = std::async(std::launch::async, [&] { return refused.upgrade({.path = "/ws/later.y"}).status; });
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 2; }));
  decide(401);
  EXPECT_EQ(answered.get(), 101);  // a browser reads the refusal as the close
  EXPECT_EQ(refused.read_close(), 4401);
}

TEST_F(AuthorizationLater, ATopicStreamsFirstMessageWaitsForItsPublishDecisionAndTheNextOnesQueueBehind) {
  SseSubscriber reader(running.port(), "/sse/wlater.t");
  ASSERT_TRUE(reader.opened());
  WsTestClient writer(running.port());
  ASSERT_EQ(writer.upgrade({.path = "/ws/wlater.t"}).status, 101);
  writer.send({.payload = "first"});
  writer.send({.payload = "second"});
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  (void)reader.client().read_until([](const std::string&) { return false; }, 1ms);  // what is there by now
  reader.parse_buffered();
  EXPECT_TRUE(reader.events().empty());
  decide(200);
  ASSERT_TRUE(reader.wait_for(2));
  EXPECT_EQ(reader.events()[0].data, "first");
  EXPECT_EQ(reader.events()[1].data, "second");
  EXPECT_EQ(gate.asked.load(), 1);  // once for the stream's life
}

// A stream's request ends with its client's FIN, before it opened as after:
// its question is withdrawn.
TEST_F(AuthorizationLater, AClientThatLeavesWhileWaitingWithdrawsItsQuestion) {
  {
    TestClient leaving(running.port());
    leaving.send("GET /sse/later.news HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  }
  ASSERT_TRUE(eventually([&] { return gate.withdrawn.load() == 1; }));
  // The handle outlives the connection: a decision given now reaches
  // nobody, and says so.
  gate.release = 200;
  ASSERT_TRUE(eventually([&] { return gate.release.load() == 0; }));
  EXPECT_EQ(gate.given.load(), 0);
  EXPECT_EQ(http_request(running.port(), "GET", "/healthz").status, 200);
}

// Given on another thread, the decision is handed to the loop and reaches
// the client as one given there would; it is still taken once.
TEST_F(AuthorizationLater, ADecisionFromAnotherThreadIsHandedToTheLoop) {
  TestClient client(running.port());
  client.send("GET /sse/later.news HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(eventually([&] { return gate.asked.load() == 1; }));
  const std::shared_ptr<AuthReply> reply = gate.last.load();
  bool first = false;
  bool second = true;
  std::thread([&] {
    first = (*reply)(AuthDecision::deny(403, "decided on another thread"));
    second = (*reply)(AuthDecision::allow());
  }).join();
  EXPECT_TRUE(first);
  EXPECT_FALSE(second);
  const HttpReply decided = read_reply(client);
  EXPECT_EQ(decided.status, 403);
  EXPECT_EQ(decided.body, "decided on another thread\n");
}

TEST_F(AuthorizationLater, ADecisionGivenDuringTheCallIsTheAnswerAndLaterWithoutAHandleIsAFailure) {
  TestClient during(running.port());
  during.send("GET /sse/now.x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const HttpReply decided = read_reply(during);
  EXPECT_EQ(decided.status, 403);
  EXPECT_EQ(decided.body, "decided during the call\n");
  TestClient broken(running.port());
  broken.send("GET /sse/broken.x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(read_reply(broken).status, 500);
}

struct AuthorizationLaterBound : AuthorizationLater {
  AuthorizationLaterBound() : AuthorizationLater(200) {}
};

TEST_F(AuthorizationLaterBound, ADecisionThatNeverComesIs503AndTheQuestionIsWithdrawn) {
  TestClient client(running.port());
  client.send("GET /sse/later.news HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 503);
  EXPECT_NE(reply.head.find("Retry-After: 1"), std::string::npos) << reply.head;
  EXPECT_EQ(reply.body, "no authorization decision within auth.callback_timeout_ms\n");
  EXPECT_EQ(gate.withdrawn.load(), 1);
}

}  // namespace
}  // namespace sluice::test
