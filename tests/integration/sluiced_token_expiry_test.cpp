// The real sluiced with auth.mode=jwt and tokens that expire while their
// streams are open: a WebSocket (reading or publishing) is closed 4401 at
// its token's exp, an SSE stream ends, and a /ws connection that refreshes
// its token in time goes on, keeps only what the new token grants, and
// cannot change whose connection it is. Over HTTP/2 each event stream ends
// at its own token's expiry. Tokens are minted in the test
// (src/auth/jwt_mint) with exp a few seconds ahead, and auth.clock_skew_ms is
// set so that the moment a stream must end is known to the millisecond:
// every wait is on the server's own answer (a close frame, the end of a
// stream), bounded, never a sleep.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "auth/jwt_mint.hpp"
#include "child_process.hpp"
#include "h2_test_client.hpp"
#include "sluiced_process.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using std::chrono::system_clock;
using ws::ServerFrame;
using ws::WsTestClient;

const std::string kExpirySecret = "token-expiry-secret-0123456789abcdef";

// Wall clock and steady clock may drift apart by a hair over a few seconds.
constexpr auto kClockSlack = 20ms;
// The sweep runs every quarter of the shortest timeout (here at most
// 500 ms); the sanitizer builds are slower.
constexpr auto kCloseBound = 3s;

struct Minted {
  std::string token;
  system_clock::time_point exp;
};

// A token for `sub` granting `subscribe` and `publish`, expiring `ttl`
// after the current whole second (exp is in whole seconds): between
// ttl - 1 and ttl seconds from now.
Minted mint(const std::string& sub, std::vector<std::string> subscribe, std::vector<std::string> publish,
            std::chrono::seconds ttl, const std::string& secret = kExpirySecret) {
  auth::SigningKey key;
  EXPECT_EQ(auth::signing_key_from_secret(secret, key), std::nullopt);
  const auto now = std::chrono::floor<std::chrono::seconds>(system_clock::now());
  const auth::TokenClaims claims{
      .subject = sub, .subscribe = std::move(subscribe), .publish = std::move(publish), .issued_at = now, .ttl = ttl};
  Minted out;
  EXPECT_EQ(auth::mint_token(claims, key, out.token), std::nullopt);
  out.exp = now + ttl;
  return out;
}

std::string bearer(const Minted& m) { return "Authorization: Bearer " + m.token + "\r\n"; }

std::vector<std::string> settings(std::int64_t skew_ms) {
  return {"auth.mode=jwt", "auth.jwt_secret=" + kExpirySecret, "auth.clock_skew_ms=" + std::to_string(skew_ms),
          "threads=1"};
}

// Reads past events until the server's close frame.
std::optional<ServerFrame> read_close_frame(WsTestClient& client, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    std::optional<ServerFrame> frame = client.read_frame(left);
    if (!frame) return std::nullopt;
    if (frame->opcode == ws::kClose) return frame;
  }
  return std::nullopt;
}

std::string reason_of(const ServerFrame& close) { return close.payload.size() > 2 ? close.payload.substr(2) : ""; }

// The next text message, as a string ("" when none came).
std::string next_message(WsTestClient& client) {
  const std::optional<ServerFrame> m = client.read_message();
  return m ? m->payload : std::string();
}

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

class SluicedTokenExpiry : public testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(sluiced.port(), 0) << sluiced.output(); }
  void TearDown() override { EXPECT_EQ(sluiced.stop(), 0) << sluiced.output(); }

  [[nodiscard]] std::uint16_t port() const { return static_cast<std::uint16_t>(sluiced.port()); }

  // An open /ws connection on `token`, following `topics` (each acked).
  void open_json(WsTestClient& client, const Minted& token, const std::vector<std::string>& topics) {
    ASSERT_EQ(client.upgrade({.path = "/ws", .extra_headers = bearer(token)}).status, 101);
    for (const std::string& topic : topics) {
      client.send({.payload = R"({"op":"subscribe","topic":")" + topic + R"(","req":")" + topic + R"("})"});
      const std::string ack = next_message(client);
      ASSERT_TRUE(starts_with(ack, R"({"op":"ack","req":")" + topic + R"(","ok":true)")) << ack;
    }
  }

  SluicedProcess sluiced{settings(0)};
};

// A subscriber on /ws/{topic} that published (authorized at its first
// message, once for the stream) and a publisher on /pub/{topic}: both are
// closed at the exp of the token they were opened with, so an expired
// token publishes nothing more.
TEST_F(SluicedTokenExpiry, WebSocketsThatReadAndPublishAreClosed4401AtTheirTokensExpiry) {
  const Minted reader_token = mint("reader", {"news"}, {}, 60s);
  const Minted short_lived = mint("alice", {"news"}, {"news"}, 2s);
  WsTestClient reader(port());
  ASSERT_EQ(reader.upgrade({.path = "/ws/news", .extra_headers = bearer(reader_token)}).status, 101);
  WsTestClient topic_stream(port());
  ASSERT_EQ(topic_stream.upgrade({.path = "/ws/news", .extra_headers = bearer(short_lived)}).status, 101);
  WsTestClient publisher(port());
  ASSERT_EQ(publisher.upgrade({.path = "/pub/news", .extra_headers = bearer(short_lived)}).status, 101);

  topic_stream.send({.payload = "from the topic stream"});
  EXPECT_EQ(next_message(reader), "from the topic stream");
  publisher.send({.payload = "from the publisher"});
  EXPECT_EQ(next_message(reader), "from the publisher");

  for (WsTestClient* client : {&topic_stream, &publisher}) {
    const std::optional<ServerFrame> close = read_close_frame(*client, 10s);
    const auto closed_at = system_clock::now();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->close_code(), 4401);
    EXPECT_EQ(reason_of(*close), "401 token expired");
    EXPECT_GE(closed_at, short_lived.exp - kClockSlack) << "closed before the token's exp";
    EXPECT_LT(closed_at, short_lived.exp + kCloseBound);
  }
  // The reader's token is good for a minute: it still gets events.
  const CurlReply published =
      curl_http({"-X", "POST", "-H", "Authorization: Bearer " + mint("p", {}, {"news"}, 60s).token, "--data", "later",
                 sluiced.base() + "/pub/news"});
  EXPECT_EQ(published.status(), 200) << published.text;
  EXPECT_EQ(next_message(reader), "later");
}

// The new grants replace the old: a topic the new token does not grant is
// left at once, and the client is told which and why.
TEST_F(SluicedTokenExpiry, ARefreshWithNarrowerGrantsRevokesTheTopicNoLongerGranted) {
  WsTestClient client(port());
  open_json(client, mint("alice", {"news", "prices"}, {}, 60s), {"news", "prices"});
  client.send({.payload = R"({"op":"refresh","token":")" + mint("alice", {"news"}, {}, 60s).token + R"(","req":7})"});
  EXPECT_EQ(next_message(client), R"({"op":"ack","req":7,"ok":true})");
  EXPECT_EQ(next_message(client),
            R"({"op":"revoked","topic":"prices","reason":"403 the token does not grant subscribe on 'prices'"})");
  // prices is published first: had the subscription stayed, its event
  // would come before news's.
  const std::string publisher = "Authorization: Bearer " + mint("p", {}, {"*"}, 60s).token;
  for (const char* topic : {"prices", "news"}) {
    const CurlReply r = curl_http({"-X", "POST", "-H", publisher, "--data", topic, sluiced.base() + "/pub/" + topic});
    ASSERT_EQ(r.status(), 200) << r.text;
  }
  const std::string event = next_message(client);
  EXPECT_TRUE(starts_with(event, R"({"op":"event","topic":"news")")) << event;
  // What the new token does not grant is refused from now on.
  client.send({.payload = R"({"op":"subscribe","topic":"prices","req":8})"});
  EXPECT_NE(next_message(client).find("403 the token does not grant subscribe on 'prices'"), std::string::npos);
}

// No identity switch on an open connection: a token of another subject is
// refused, the request answered, and the connection closed.
TEST_F(SluicedTokenExpiry, ARefreshThatFailsIsAnsweredAndTheConnectionClosed) {
  struct Case {
    std::optional<Minted> opened_with;  // none: no token
    std::string refresh_token;
    int close_code;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {mint("alice", {"news"}, {}, 60s), mint("mallory", {"news", "prices"}, {}, 60s).token, 4403,
       "403 the token's subject is not the connection's"},
      {mint("alice", {"news"}, {}, 60s), mint("alice", {"*"}, {}, 60s, "another-secret-0123456789abcdefghij").token,
       4401, "401 signature does not verify"},
      {std::nullopt, mint("alice", {"news"}, {}, 60s).token, 4403,
       "403 the connection was opened without a token; a refresh cannot add one"},
  };
  for (const Case& c : cases) {
    WsTestClient client(port());
    if (c.opened_with) {
      open_json(client, *c.opened_with, {"news"});
    } else {
      ASSERT_EQ(client.upgrade({.path = "/ws"}).status, 101);
    }
    client.send({.payload = R"({"op":"refresh","token":")" + c.refresh_token + R"(","req":1})"});
    EXPECT_EQ(next_message(client), R"({"op":"ack","req":1,"ok":false,"error":")" + c.reason + R"("})");
    const std::optional<ServerFrame> close = read_close_frame(client, 10s);
    ASSERT_TRUE(close) << c.reason;
    EXPECT_EQ(close->close_code(), c.close_code);
    EXPECT_EQ(reason_of(*close), c.reason);
  }
}

// An EventSource cannot send a new token on an open stream: the stream
// ends, with a comment saying why, and the client reconnects with a fresh
// token. The skew allowed is honoured: the end comes that long after exp.
TEST(SluicedTokenExpirySse, AnSseStreamEndsWhenItsTokenExpiresPlusTheSkew) {
  SluicedProcess sluiced(settings(1000));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Minted token = mint("alice", {"news"}, {}, 1s);
  ChildProcess reader(
      {"curl", "-sN", "-m", "20", "--cookie", "sluice_token=" + token.token, sluiced.base() + "/sse/news"});
  ASSERT_TRUE(reader.read_until_contains("retry:", 10s)) << reader.output();
  EXPECT_TRUE(reader.read_to_end(10s)) << reader.output();
  const auto ended_at = system_clock::now();
  EXPECT_EQ(reader.wait(5s), 0) << reader.output();
  EXPECT_NE(reader.output().find(": token expired: reconnect with a fresh token\n"), std::string::npos)
      << reader.output();
  EXPECT_GE(ended_at, token.exp + 1s - kClockSlack) << "ended before exp + auth.clock_skew_ms";
  EXPECT_LT(ended_at, token.exp + 1s + kCloseBound);
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

// Over HTTP/2 each stream ends at its own token's expiry: the first
// stream's token is short, a later stream on the same connection carries a
// longer one, and only the first ends, with the same comment. Before, no
// HTTP/2 event stream ended at all.
TEST(SluicedTokenExpirySse, OverHttp2EachStreamEndsAtItsOwnTokensExpiry) {
  SluicedProcess sluiced(settings(0));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  // Five seconds from a whole second: at least four left for both streams
  // to open in, even under the sanitizers (with no skew allowed, a token
  // minted late in its second with a second or two to live could be
  // expired before its request is read).
  const Minted short_lived = mint("alice", {"news"}, {}, 5s);
  const Minted long_lived = mint("alice", {"news"}, {}, 60s);
  transport::test::H2TestClient client(sluiced.port());
  ASSERT_TRUE(client.ok());
  const auto first = client.request("GET", "/sse/news", {{"authorization", "Bearer " + short_lived.token}});
  ASSERT_TRUE(client.pump([&] { return client.stream(first).body.find("retry:") != std::string::npos; }));
  const auto second = client.request("GET", "/sse/news", {{"authorization", "Bearer " + long_lived.token}});
  ASSERT_TRUE(client.pump([&] { return client.stream(second).body.find("retry:") != std::string::npos; }));
  ASSERT_TRUE(client.pump([&] { return client.stream(first).closed; }, 15s)) << client.stream(first).body;
  const auto ended_at = system_clock::now();
  EXPECT_NE(client.stream(first).body.find(": token expired: reconnect with a fresh token\n"), std::string::npos)
      << client.stream(first).body;
  EXPECT_GE(ended_at, short_lived.exp - kClockSlack) << "ended before exp";
  EXPECT_FALSE(client.stream(second).closed) << "the later stream's token is not the first's";
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

// Debian's python3-websockets as the peer: one /ws connection left to
// expire is closed 4401, and one that refreshed before exp still gets
// events after that close (tests/peers/ws_refresh.py).
TEST_F(SluicedTokenExpiry, PythonWebsocketsRefreshesInTimeAndOutlivesTheConnectionThatDidNot) {
  const std::filesystem::path peers = std::filesystem::path(SLUICE_SOURCE_DIR) / "tests" / "peers";
  const Minted first = mint("alice", {"news"}, {}, 2s);
  const Minted refreshed = mint("alice", {"news"}, {}, 60s);
  const Minted publisher = mint("p", {}, {"news"}, 60s);
  ChildProcess python(
      {"/usr/bin/python3", (peers / "ws_refresh.py").string(), std::to_string(sluiced.port()), first.token,
       refreshed.token, publisher.token,
       std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(first.exp.time_since_epoch()).count())});
  python.read_to_end(30s);
  EXPECT_EQ(python.wait(5s), 0) << python.output();
  EXPECT_NE(python.output().find("ws_refresh.py: unrefreshed closed 4401 '401 token expired' at exp, refreshed "
                                 "one got an event after it"),
            std::string::npos)
      << python.output();
}

}  // namespace
}  // namespace sluice::test
