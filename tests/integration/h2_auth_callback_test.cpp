// HTTP/2 streams waiting for the authorization callback's answer: the real
// sluiced with auth.mode=callback and HTTP/2 on, nghttp2's client API over
// h2c, and a real HTTP server the test starts as the callback
// (CallbackServer: it answers by the topic, "status-NNN" with NNN, "hold"
// never). Only the stream that asked waits: each stream of one connection
// gets its own answer, the others are served while one waits, a wait
// past auth.callback_timeout_ms is 503, and a stream reset or a connection
// closed withdraws its question (its place among the callback's questions
// in flight comes back).
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "access_log_lines.hpp"
#include "auth/callback_server.hpp"
#include "h2_test_client.hpp"
#include "sluiced_process.hpp"

namespace sluice::test {
namespace {

using auth::test::CallbackServer;
using transport::test::H2TestClient;
using Fields = std::vector<std::pair<std::string, std::string>>;

const Fields kWsVersion = {{"sec-websocket-version", "13"}};

std::vector<std::string> callback_settings(std::uint16_t callback_port, std::vector<std::string> more) {
  std::vector<std::string> s = {"auth.mode=callback",
                                "auth.callback_url=http://127.0.0.1:" + std::to_string(callback_port) + "/authorize",
                                "threads=1"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// A client's text message: masked, with a key of zeros (RFC 6455 requires
// the mask bit, not a key that changes the bytes).
std::string masked_text(const std::string& text) {
  std::string frame = {'\x81', static_cast<char>(0x80 | text.size()), 0, 0, 0, 0};
  return frame + text;
}

// Waits (bounded) until the callback server has been asked `count` questions.
bool wait_asked(const CallbackServer& callback, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (callback.requests() < count) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

class H2AuthCallback : public testing::Test {
 protected:
  void start(std::vector<std::string> more = {}) {
    sluiced = std::make_unique<SluicedProcess>(callback_settings(callback.port(), std::move(more)));
    ASSERT_NE(sluiced->port(), 0) << sluiced->output();
    client = std::make_unique<H2TestClient>(sluiced->port());
    ASSERT_TRUE(client->ok());
    ASSERT_TRUE(client->pump([&] {
      return nghttp2_session_get_remote_settings(client->session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
    }));
  }
  void TearDown() override {
    client.reset();
    if (sluiced) {
      EXPECT_EQ(sluiced->stop(), 0) << sluiced->output();
    }
  }
  int status(std::int32_t stream) { return client->stream(stream).status; }
  const std::string& body(std::int32_t stream) { return client->stream(stream).body; }

  CallbackServer callback;
  std::unique_ptr<SluicedProcess> sluiced;
  std::unique_ptr<H2TestClient> client;
};

TEST_F(H2AuthCallback, EachStreamOfAConnectionGetsItsOwnAnswer) {
  start();
  const auto reader = client->request("GET", "/sse/status-200");
  const auto ws = client->request("CONNECT", "/ws/status-204", kWsVersion, "", true, "websocket");
  ASSERT_TRUE(client->pump([&] { return has(body(reader), "retry: ") && status(ws) == 200; }));
  // The body is sent with the headers: it waits unread, then is published.
  const auto post = client->request("POST", "/pub/status-200", {}, "hello");
  const auto forbidden = client->request("GET", "/sse/status-403");
  const auto unauthenticated = client->request("POST", "/pub/status-401", {}, "x");
  const auto ws_forbidden = client->request("CONNECT", "/ws/status-403", kWsVersion, "", true, "websocket");
  ASSERT_TRUE(client->pump([&] {
    return status(post) != 0 && status(forbidden) != 0 && status(unauthenticated) != 0 && status(ws_forbidden) != 0 &&
           has(body(reader), "data: hello\n");
  }));
  EXPECT_EQ(status(post), 200);
  EXPECT_EQ(status(forbidden), 403);
  EXPECT_EQ(status(unauthenticated), 401);
  EXPECT_EQ(status(ws_forbidden), 403);

  // The WebSocket's own message is a publish: asked of the callback too,
  // its stream alone waiting, then published to the stream's topic.
  const auto watcher = client->request("GET", "/sse/status-204");
  ASSERT_TRUE(client->pump([&] { return has(body(watcher), "retry: "); }));
  const std::size_t asked = callback.requests();
  client->send(ws, masked_text("from-ws"), false);
  ASSERT_TRUE(client->pump([&] { return has(body(watcher), "data: from-ws\n") && has(body(ws), "from-ws"); }));
  EXPECT_EQ(callback.requests(), asked + 1);
  const std::vector<std::string> questions = callback.received();
  EXPECT_TRUE(has(questions.back(), R"("action":"publish")")) << questions.back();
  EXPECT_TRUE(has(questions.back(), R"("topic":"status-204")")) << questions.back();
  EXPECT_FALSE(client->goaway());
}

// A client that ends its connection (a FIN) right after a WebSocket
// message: the message waits for its decision, is published, and only then
// does the connection close. Before, the FIN closed it with the message
// dropped.
TEST_F(H2AuthCallback, AWebSocketMessageSentBeforeTheFinIsPublishedOnceDecided) {
  start();
  H2TestClient watcher_client(sluiced->port());
  ASSERT_TRUE(watcher_client.ok());
  const auto watcher = watcher_client.request("GET", "/sse/status-204");
  ASSERT_TRUE(watcher_client.pump([&] { return has(watcher_client.stream(watcher).body, "retry: "); }));
  const auto ws = client->request("CONNECT", "/ws/status-204", kWsVersion, "", true, "websocket");
  ASSERT_TRUE(client->pump([&] { return status(ws) == 200; }));
  client->send(ws, masked_text("before-fin"), false);
  ASSERT_TRUE(client->flush());
  ASSERT_EQ(::shutdown(client->fd(), SHUT_WR), 0);
  ASSERT_TRUE(watcher_client.pump([&] { return has(watcher_client.stream(watcher).body, "data: before-fin\n"); }));
  EXPECT_TRUE(client->pump([&] { return client->eof(); })) << "the connection closes once nothing is owed";
}

TEST_F(H2AuthCallback, AStreamWaitingForTheCallbackHoldsUpNoOtherAndGets503PastTheTimeout) {
  start({"auth.callback_timeout_ms=800"});
  const auto held_sse = client->request("GET", "/sse/hold");
  const auto held_post = client->request("POST", "/pub/hold", {}, "never");
  const auto held_ws = client->request("CONNECT", "/ws/hold", kWsVersion, "", true, "websocket");
  ASSERT_TRUE(client->flush());
  ASSERT_TRUE(wait_asked(callback, 3));

  const auto reader = client->request("GET", "/sse/status-200");
  ASSERT_TRUE(client->pump([&] { return has(body(reader), "retry: "); }));
  const auto post = client->request("POST", "/pub/status-200", {}, "while-held");
  ASSERT_TRUE(client->pump([&] { return status(post) == 200 && has(body(reader), "data: while-held\n"); }));
  EXPECT_EQ(status(held_sse), 0);
  EXPECT_EQ(status(held_post), 0);
  EXPECT_EQ(status(held_ws), 0);

  ASSERT_TRUE(client->pump([&] { return status(held_sse) != 0 && status(held_post) != 0 && status(held_ws) != 0; }));
  EXPECT_EQ(status(held_sse), 503);
  EXPECT_EQ(status(held_post), 503);
  EXPECT_EQ(status(held_ws), 503);
  EXPECT_FALSE(has(body(reader), "never"));
  EXPECT_FALSE(client->goaway());
}

// One question in flight at most: while a stream's question is pending the
// next one is refused at once (503). Resetting the stream, or closing its
// connection, withdraws the question and gives its place back.
TEST_F(H2AuthCallback, AResetStreamOrAClosedConnectionWithdrawsItsQuestion) {
  start({"auth.callback_max_inflight=1", "auth.callback_timeout_ms=20000"});
  const auto held = client->request("GET", "/sse/hold");
  ASSERT_TRUE(client->flush());
  ASSERT_TRUE(wait_asked(callback, 1));
  const auto over = client->request("GET", "/sse/status-200");
  ASSERT_TRUE(client->pump([&] { return status(over) != 0; }));
  EXPECT_EQ(status(over), 503);

  ASSERT_EQ(nghttp2_submit_rst_stream(client->session(), NGHTTP2_FLAG_NONE, held, NGHTTP2_CANCEL), 0);
  const auto after_reset = client->request("GET", "/sse/status-204");
  ASSERT_TRUE(client->pump([&] { return status(after_reset) != 0; }));
  EXPECT_EQ(status(after_reset), 200);

  {
    H2TestClient leaving(sluiced->port());
    ASSERT_TRUE(leaving.ok());
    leaving.request("GET", "/sse/hold");
    ASSERT_TRUE(leaving.flush());
    ASSERT_TRUE(wait_asked(callback, 3));
  }
  // The connection's close reaches the server at its own pace: asked again
  // (each refusal is immediate and not cached) until the place is back,
  // well before the 20 s the callback's time-out would take.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  int answer = 503;
  while (answer == 503 && std::chrono::steady_clock::now() < deadline) {
    const auto again = client->request("GET", "/sse/status-205");
    ASSERT_TRUE(client->pump([&] { return status(again) != 0; }));
    answer = status(again);
    if (answer == 503) std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(answer, 200) << "the closed connection's question kept its place";
  EXPECT_EQ(status(held), 0);
  EXPECT_TRUE(client->stream(held).closed);
}

// A stream reset while its decision is pending has its access-log line:
// 499 (no status was sent). A stream decided later is logged once, with
// the status it was answered.
TEST_F(H2AuthCallback, AStreamResetWhileItsDecisionIsPendingIsLogged) {
  start({"log.access=1", "auth.callback_timeout_ms=20000"});
  const auto held = client->request("GET", "/sse/hold");
  ASSERT_TRUE(client->flush());
  ASSERT_TRUE(wait_asked(callback, 1));
  ASSERT_EQ(nghttp2_submit_rst_stream(client->session(), NGHTTP2_FLAG_NONE, held, NGHTTP2_CANCEL), 0);
  const auto allowed = client->request("GET", "/sse/status-200");
  ASSERT_TRUE(client->pump([&] { return status(allowed) != 0; }));
  EXPECT_EQ(status(allowed), 200);
  client.reset();
  EXPECT_EQ(sluiced->stop(), 0);

  const std::string log = sluiced->output();
  EXPECT_TRUE(has(access_line_of_stream(log, held), "target=/sse/hold status=499 transport=http ")) << log;
  EXPECT_TRUE(has(access_line_of_stream(log, allowed), "target=/sse/status-200 status=200 transport=sse ")) << log;
  EXPECT_EQ(log.find("target=/sse/status-200 ", log.find("target=/sse/status-200 ") + 1), std::string::npos) << log;
  sluiced.reset();
}

}  // namespace
}  // namespace sluice::test
