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
#include "child_process.hpp"
#include "h2_test_client.hpp"
#include "sluiced_process.hpp"

namespace sluice::test {
namespace {

using auth::test::CallbackServer;
using transport::test::H2TestClient;
using Fields = std::vector<std::pair<std::string, std::string>>;

const Fields kWsVersion = {{"sec-websocket-version", "13"}};
constexpr const char* kTestSecret = "h2-callback-secret-0123456789abcdef";

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
  ASSERT_NO_FATAL_FAILURE(start());
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
  ASSERT_NO_FATAL_FAILURE(start());
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

// A token minted by `sluice token` with the test's secret.
std::string minted(const std::vector<std::string>& grants) {
  std::vector<std::string> argv = {SLUICE_CLI_PATH, "token", "--secret", kTestSecret, "--ttl", "600"};
  argv.insert(argv.end(), grants.begin(), grants.end());
  ChildProcess mint(argv);
  mint.read_to_end(10s);
  EXPECT_EQ(mint.wait(5s), 0) << mint.output();
  std::string token = mint.output();
  token.erase(token.find_last_not_of("\r\n") + 1);
  return token;
}

// Each request of a connection is judged by its own token. A WebSocket
// whose subscribe waits for the callback opens with the credentials of the
// request that opened it, not those a later request on the same connection
// brought meanwhile: its messages are publishes its own token does not
// grant, and it is closed 4403 for the first.
TEST_F(H2AuthCallback, AStreamDecidedLaterKeepsItsOwnRequestsCredentials) {
  ASSERT_NO_FATAL_FAILURE(
      start({"auth.mode=jwt", std::string("auth.jwt_secret=") + kTestSecret, "auth.callback_cache_ms=0"}));
  const std::string reader_only = minted({"--sub", "reader", "--subscribe", "gate-204"});
  const std::string publisher = minted({"--sub", "publisher", "--publish", "gate-204"});
  Fields ws_fields = kWsVersion;
  ws_fields.emplace_back("authorization", "Bearer " + reader_only);
  const auto ws = client->request("CONNECT", "/ws/gate-204", ws_fields, "", true, "websocket");
  ASSERT_TRUE(client->flush());
  ASSERT_TRUE(wait_asked(callback, 1));
  // The publisher's token on the same connection, for a topic it may not
  // read: refused at once by its own grants, while the WebSocket waits.
  const auto other = client->request("GET", "/sse/elsewhere", {{"authorization", "Bearer " + publisher}});
  ASSERT_TRUE(client->pump([&] { return status(other) != 0; }));
  EXPECT_EQ(status(other), 403);
  EXPECT_EQ(status(ws), 0);
  callback.open_gate();
  ASSERT_TRUE(client->pump([&] { return status(ws) != 0; }));
  ASSERT_EQ(status(ws), 200) << body(ws);
  client->send(ws, masked_text("not-granted"), false);
  ASSERT_TRUE(client->pump([&] { return has(body(ws), "publish") || has(body(ws), "not-granted"); })) << body(ws);
  EXPECT_TRUE(has(body(ws), "\x11\x33")) << "closed 4403";
  EXPECT_TRUE(has(body(ws), "does not grant publish on 'gate-204'")) << body(ws);
  EXPECT_FALSE(has(body(ws), "not-granted")) << "published and echoed";
}

TEST_F(H2AuthCallback, AStreamWaitingForTheCallbackHoldsUpNoOtherAndGets503PastTheTimeout) {
  ASSERT_NO_FATAL_FAILURE(start({"auth.callback_timeout_ms=800"}));
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
  ASSERT_NO_FATAL_FAILURE(start({"auth.callback_max_inflight=1", "auth.callback_timeout_ms=20000"}));
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
  ASSERT_NO_FATAL_FAILURE(start({"log.access=1", "auth.callback_timeout_ms=20000"}));
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
