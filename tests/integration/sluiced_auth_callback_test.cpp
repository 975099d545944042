// The real sluiced with an authorization callback (auth.mode=callback, and
// jwt + auth.callback_url), against a real HTTP server the test starts
// (CallbackServer: it answers by the topic asked about, "status-NNN" with
// NNN, "hold" never). Each answer reaches each kind of client with its
// status or close code; a slow callback holds up only the client that
// asked; answers are cached; the questions in flight are bounded; a client
// that leaves while its decision is pending costs nothing (this binary runs
// under ASan in the debug build).
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "access_log_lines.hpp"
#include "auth/callback_server.hpp"
#include "child_process.hpp"
#include "io/socket.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using auth::test::CallbackServer;
using ws::WsTestClient;

std::vector<std::string> callback_settings(std::uint16_t callback_port, std::vector<std::string> more = {}) {
  std::vector<std::string> s = {"auth.mode=callback",
                                "auth.callback_url=http://127.0.0.1:" + std::to_string(callback_port) + "/authorize",
                                "auth.callback_headers=X-App-Session", "h2.enabled=0", "threads=1"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

// Waits (bounded) until the callback server has been asked `count` questions.
bool wait_asked(const CallbackServer& callback, std::size_t count, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (callback.requests() < count) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// True when `client` has been sent something by now (a look, not a wait).
bool sent_anything(TestClient& client) {
  return client.read_until([](const std::string& buffer) { return !buffer.empty(); }, 1ms);
}

std::string get(const std::string& target, const std::string& headers = {}) {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "\r\n";
}

std::string post(const std::string& target, const std::string& body) {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

class SluicedAuthCallback : public testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(sluiced.port(), 0) << sluiced.output(); }
  void TearDown() override { EXPECT_EQ(sluiced.stop(), 0) << sluiced.output(); }

  std::uint16_t port() { return static_cast<std::uint16_t>(sluiced.port()); }

  CallbackServer callback;
  SluicedProcess sluiced{callback_settings(callback.port(), {"auth.callback_timeout_ms=1500"})};
};

TEST_F(SluicedAuthCallback, AllowedClientsReadAndPublishAndTheCallbackSeesCookiesAndChosenHeaders) {
  SseSubscriber reader(port(), "/sse/status-200");
  ASSERT_TRUE(reader.opened());
  TestClient publisher(port());
  publisher.send(post("/pub/status-200", "hello"));
  EXPECT_EQ(read_reply(publisher).status, 200);
  ASSERT_TRUE(reader.wait_for(1));
  EXPECT_EQ(reader.events()[0].data, "hello");

  TestClient with_cookie(port());
  with_cookie.send(get("/sse/status-200", "Cookie: session=abc\r\nX-App-Session: 7\r\nX-Other: no\r\n"));
  ASSERT_TRUE(with_cookie.read_until_contains("retry:"));
  const std::vector<std::string> asked = callback.received();
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_NE(asked[0].find(R"({"action":"subscribe","remote_addr":"127.0.0.1","topic":"status-200"})"),
            std::string::npos)
      << asked[0];
  EXPECT_NE(asked[1].find(R"("action":"publish")"), std::string::npos) << asked[1];
  EXPECT_NE(asked[2].find("Cookie: session=abc\r\n"), std::string::npos) << asked[2];
  EXPECT_NE(asked[2].find("X-App-Session: 7\r\n"), std::string::npos) << asked[2];
  EXPECT_EQ(asked[2].find("X-Other"), std::string::npos) << asked[2];
}

TEST_F(SluicedAuthCallback, RefusalsReachSsePostWsAcksAndTopicWebSocketsWithTheirStatus) {
  TestClient sse(port());
  sse.send(get("/sse/status-403"));
  EXPECT_EQ(read_reply(sse).status, 403);
  TestClient unauthenticated(port());
  unauthenticated.send(get("/sse/status-401"));
  const HttpReply challenged = read_reply(unauthenticated);
  EXPECT_EQ(challenged.status, 401);
  EXPECT_NE(challenged.head.find("WWW-Authenticate: Bearer"), std::string::npos) << challenged.head;
  TestClient poster(port());
  poster.send(post("/pub/status-403", "x"));
  EXPECT_EQ(read_reply(poster).status, 403);

  WsTestClient json(port());
  ASSERT_EQ(json.upgrade({.path = "/ws"}).status, 101);
  json.send({.payload = R"({"op":"subscribe","topic":"status-403","req":1})"});
  std::optional<ws::ServerFrame> ack = json.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":1,"ok":false)", 0), 0u) << ack->payload;
  EXPECT_NE(ack->payload.find("403 "), std::string::npos) << ack->payload;
  json.send({.payload = R"({"op":"subscribe","topic":"status-200","req":2})"});
  ack = json.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":2,"ok":true)", 0), 0u) << ack->payload;

  WsTestClient topic(port());
  ASSERT_EQ(topic.upgrade({.path = "/ws/status-401"}).status, 101);
  EXPECT_EQ(topic.read_close(), 4401);
  WsTestClient publisher(port());
  ASSERT_EQ(publisher.upgrade({.path = "/pub/status-403"}).status, 101);
  EXPECT_EQ(publisher.read_close(), 4403);
}

TEST_F(SluicedAuthCallback, ASlowCallbackIs503AndTheLoopServesOthersMeanwhile) {
  SseSubscriber reader(port(), "/sse/status-200");
  ASSERT_TRUE(reader.opened());
  const std::size_t before = callback.requests();
  TestClient held(port());
  held.send(get("/sse/hold"));
  ASSERT_TRUE(wait_asked(callback, before + 1));

  // The one loop serves another client's publish and stream while the held
  // client's decision is pending.
  TestClient publisher(port());
  publisher.send(post("/pub/status-200", "meanwhile"));
  EXPECT_EQ(read_reply(publisher).status, 200);
  ASSERT_TRUE(reader.wait_for(1));
  EXPECT_EQ(reader.events()[0].data, "meanwhile");
  EXPECT_FALSE(sent_anything(held)) << held.buffer();  // still waiting

  const HttpReply timed_out = read_reply(held);
  EXPECT_EQ(timed_out.status, 503);
  EXPECT_NE(timed_out.head.find("Retry-After: 1"), std::string::npos) << timed_out.head;
  EXPECT_NE(timed_out.body.find("auth.callback_timeout_ms"), std::string::npos) << timed_out.body;
}

TEST_F(SluicedAuthCallback, AWsRequestWaitingForItsDecisionHoldsTheAcksBehindItInOrder) {
  WsTestClient json(port());
  ASSERT_EQ(json.upgrade({.path = "/ws"}).status, 101);
  json.send({.payload = R"({"op":"subscribe","topic":"hold","req":1})"});
  json.send({.payload = R"({"op":"subscribe","topic":"status-200","req":2})"});
  std::optional<ws::ServerFrame> ack = json.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":1,"ok":false)", 0), 0u) << ack->payload;
  EXPECT_NE(ack->payload.find("503 "), std::string::npos) << ack->payload;
  ack = json.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":2,"ok":true)", 0), 0u) << ack->payload;
}

TEST_F(SluicedAuthCallback, ACachedAnswerIsGivenWithoutAskingAgain) {
  for (int i = 0; i < 2; ++i) {
    SseSubscriber reader(port(), "/sse/status-200");
    ASSERT_TRUE(reader.opened());
  }
  EXPECT_EQ(callback.requests(), 1u);
  TestClient other_cookie(port());
  other_cookie.send(get("/sse/status-200", "Cookie: session=other\r\n"));
  ASSERT_TRUE(other_cookie.read_until_contains("retry:"));
  EXPECT_EQ(callback.requests(), 2u);  // another question: asked
}

TEST_F(SluicedAuthCallback, AClientThatLeavesWhileItsDecisionIsPendingCostsNothing) {
  for (int i = 0; i < 3; ++i) {
    const std::size_t before = callback.requests();
    {
      TestClient leaving(port());
      leaving.send(get("/sse/hold"));
      ASSERT_TRUE(wait_asked(callback, before + 1));
    }
    WsTestClient json(port());
    ASSERT_EQ(json.upgrade({.path = "/ws"}).status, 101);
    json.send({.payload = R"({"op":"subscribe","topic":"hold","req":1})"});
    ASSERT_TRUE(wait_asked(callback, before + 2));
  }
  SseSubscriber reader(port(), "/sse/status-200");
  EXPECT_TRUE(reader.opened());
}

// A request whose client leaves while its decision is pending has its
// access-log line: 499 (no status was sent). A request decided later is
// logged once, with the status it was answered.
TEST(SluicedAuthCallbackLog, ARequestWhoseClientLeavesWhileItsDecisionIsPendingIsLogged) {
  CallbackServer callback;
  SluicedProcess sluiced(callback_settings(callback.port(), {"log.access=1"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const auto port = static_cast<std::uint16_t>(sluiced.port());
  {
    TestClient leaving(port);
    leaving.send(get("/sse/hold"));
    ASSERT_TRUE(wait_asked(callback, 1));
  }
  TestClient allowed(port);
  allowed.send(get("/sse/status-200"));
  ASSERT_TRUE(allowed.read_until_contains("retry:"));
  EXPECT_EQ(sluiced.stop(), 0);

  const std::string log = sluiced.output();
  EXPECT_TRUE(target_logged_with(log, "/sse/hold", " status=499 transport=http ")) << log;
  EXPECT_TRUE(target_logged_with(log, "/sse/status-200", " status=200 transport=sse ")) << log;
  EXPECT_EQ(log.find(" target=/sse/status-200 ", log.find(" target=/sse/status-200 ") + 1), std::string::npos) << log;
}

TEST(SluicedAuthCallbackLimits, PastMaxInflightTheAnswerIsAnImmediate503) {
  CallbackServer callback;
  SluicedProcess sluiced(callback_settings(callback.port(), {"auth.callback_max_inflight=1"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const auto port = static_cast<std::uint16_t>(sluiced.port());
  TestClient held(port);
  held.send(get("/sse/hold"));
  ASSERT_TRUE(wait_asked(callback, 1));
  TestClient second(port);
  second.send(get("/sse/status-200"));
  const HttpReply busy = read_reply(second);
  EXPECT_EQ(busy.status, 503);
  EXPECT_NE(busy.body.find("auth.callback_max_inflight"), std::string::npos) << busy.body;
  EXPECT_FALSE(sent_anything(held)) << held.buffer();  // the first still waits: the 503 came at once
  EXPECT_EQ(callback.requests(), 1u);
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

TEST(SluicedAuthCallbackLimits, AnUnreachableCallbackIs503) {
  // A port nobody listens on: taken, then given back.
  const int fd = io::listen_tcp(io::Endpoint{"127.0.0.1", 0}, io::ListenOptions{});
  const std::uint16_t closed_port = io::local_port(fd);
  ::close(fd);
  SluicedProcess sluiced(callback_settings(closed_port));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const CurlReply reply = curl_http({sluiced.base() + "/sse/news"});
  EXPECT_EQ(reply.status(), 503) << reply.text;
  EXPECT_TRUE(reply.has("Retry-After: 1")) << reply.text;
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

TEST(SluicedAuthCallbackJwt, TheTokenDecidesFirstAndTheCallbackIsAskedOnlyWhatItAllows) {
  CallbackServer callback;
  const std::string secret = "integration-secret-0123456789abcdef";
  SluicedProcess sluiced(callback_settings(callback.port(), {"auth.mode=jwt", "auth.jwt_secret=" + secret,
                                                             "auth.anonymous_subscribe=*"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  // No token, publishing (open to no anonymous client): 401 from the token
  // rules, and the callback never hears of it.
  CurlReply reply = curl_http({"-X", "POST", "--data-binary", "x", sluiced.base() + "/pub/status-200"});
  EXPECT_EQ(reply.status(), 401) << reply.text;
  EXPECT_EQ(callback.requests(), 0u);
  // Reading is open to anonymous clients: the callback has the last word.
  reply = curl_http({sluiced.base() + "/sse/status-403"});
  EXPECT_EQ(reply.status(), 403) << reply.text;
  EXPECT_EQ(callback.requests(), 1u);
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

TEST(SluicedAuthCallbackStart, BadCallbackSettingsStopTheServerNamingTheKey) {
  struct BadStart {
    std::vector<std::string> args;
    std::string must_say;
  };
  const std::vector<BadStart> cases = {
      {{"--set", "auth.mode=callback", "--set", "h2.enabled=0"}, "config key 'auth.callback_url' must be set"},
      {{"--set", "auth.callback_url=http://127.0.0.1:9/x"}, "'auth.callback_url' is set but auth.mode is none"},
      {{"--set", "auth.mode=callback", "--set", "h2.enabled=0", "--set", "auth.callback_url=https://127.0.0.1/x"},
       "auth.callback_url"},
      {{"--set", "auth.mode=callback", "--set", "h2.enabled=0", "--set", "auth.callback_url=http://127.0.0.1:9/x",
        "--set", "auth.callback_headers=Host"},
       "auth.callback_headers"},
      {{"--set", "auth.callback_timeout_ms=5"}, "'auth.callback_timeout_ms' must be an integer between 10 and 60000"},
      {{"--set", "auth.callback_cache_ms=-1"}, "'auth.callback_cache_ms' must be an integer between 0 and 3600000"},
      {{"--set", "auth.callback_cache_entries=1000001"}, "'auth.callback_cache_entries' must be an integer between 0"},
      {{"--set", "auth.callback_max_inflight=0"}, "'auth.callback_max_inflight' must be an integer between 1 and 10000"},
      {{"--set", "auth.callback_max_reply_bytes=100"},
       "'auth.callback_max_reply_bytes' must be an integer between 256 and 65536"},
  };
  for (const BadStart& c : cases) {
    std::vector<std::string> argv = {env_path("SLUICED")};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    ChildProcess sluiced(argv);
    EXPECT_EQ(sluiced.wait(10s), 2) << c.must_say;
    sluiced.read_to_end(5s);
    EXPECT_NE(sluiced.output().find(c.must_say), std::string::npos) << sluiced.output();
    EXPECT_EQ(std::count(sluiced.output().begin(), sluiced.output().end(), '\n'), 1) << sluiced.output();
  }
}

}  // namespace
}  // namespace sluice::test
