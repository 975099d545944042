// The real sluiced with auth.mode=jwt, against real peers: curl with a
// bearer token and with a cookie, tokens minted by PyJWT (an implementation
// independent of sluice's) and by `sluice token`. Each refusal has a test of
// its own with the status or close code the client sees; the start-up rules
// (no auth means loopback only) are checked on the binary too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "scratch_file.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using ws::WsTestClient;

const std::string kSecret = "integration-secret-0123456789abcdef";

// Signs `claims` (JSON; exp, nbf and iat are seconds from now) with PyJWT.
// `alg` "none" makes an unsigned token; RS256 reads `key` as a PEM file.
std::string pyjwt(const std::string& claims, const std::string& alg = "HS256", const std::string& key = kSecret) {
  const std::string script =
      "import jwt, json, sys, time\n"
      "c = json.loads(sys.argv[1]); now = int(time.time())\n"
      "c = {k: (now + v if k in ('exp', 'nbf', 'iat') else v) for k, v in c.items()}\n"
      "alg, key = sys.argv[2], sys.argv[3]\n"
      "if alg == 'none': key = None\n"
      "elif alg.startswith('RS'): key = open(key).read()\n"
      "print(jwt.encode(c, key, algorithm=alg))\n";
  ChildProcess python({"/usr/bin/python3", "-c", script, claims, alg, key});
  python.read_to_end(10s);
  EXPECT_EQ(python.wait(5s), 0) << python.output();
  std::string token = python.output();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return token;
}

const std::string kNewsReader = R"({"sub":"alice","exp":600,"sluice":{"subscribe":["news"],"publish":["news"]}})";

std::vector<std::string> jwt_settings(std::vector<std::string> more = {}) {
  std::vector<std::string> s = {"auth.mode=jwt", "auth.jwt_secret=" + kSecret, "auth.anonymous_subscribe=public.*",
                                "threads=1"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

class SluicedAuth : public testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(sluiced.port(), 0) << sluiced.output(); }
  void TearDown() override { EXPECT_EQ(sluiced.stop(), 0) << sluiced.output(); }

  CurlReply publish(const std::string& topic, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"-X", "POST", "--data-binary", "hello"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(sluiced.base() + "/pub/" + topic);
    return curl_http(args);
  }

  SluicedProcess sluiced{jwt_settings()};
};

TEST_F(SluicedAuth, CurlWithABearerTokenPublishesAndWithACookieReads) {
  const std::string token = pyjwt(kNewsReader);
  ChildProcess reader({"curl", "-sN", "--cookie", "sluice_token=" + token, sluiced.base() + "/sse/news"});
  ASSERT_TRUE(reader.read_until_contains("retry:", 10s)) << reader.output();
  const CurlReply published = publish("news", {"-H", "Authorization: Bearer " + token});
  EXPECT_EQ(published.status(), 200) << published.text;
  EXPECT_TRUE(reader.read_until_contains("data: hello", 10s)) << reader.output();
}

TEST_F(SluicedAuth, ATokenMintedBySluiceTokenIsAccepted) {
  ChildProcess mint({SLUICE_CLI_PATH, "token", "--secret", kSecret, "--publish", "news", "--ttl", "60"});
  mint.read_to_end(10s);
  ASSERT_EQ(mint.wait(5s), 0) << mint.output();
  std::string token = mint.output();
  token.erase(token.find_last_not_of("\r\n") + 1);
  EXPECT_EQ(publish("news", {"-H", "Authorization: Bearer " + token}).status(), 200);
}

TEST_F(SluicedAuth, NoTokenIs401WithABearerChallenge) {
  const CurlReply reply = publish("news");
  EXPECT_EQ(reply.status(), 401) << reply.text;
  EXPECT_TRUE(reply.has("WWW-Authenticate: Bearer realm=\"sluice\"\r\n")) << reply.text;
  const CurlReply sse = curl_http({sluiced.base() + "/sse/news"});
  EXPECT_EQ(sse.status(), 401) << sse.text;
}

// The operator's figures are server topics: a token must name them, and
// "*" (what a public-read setup grants anyone) does not.
TEST_F(SluicedAuth, MetricsAndTheSystemTopicNeedATokenThatNamesThem) {
  EXPECT_EQ(curl_http({sluiced.base() + "/metrics"}).status(), 401);
  const std::string everything =
      pyjwt(R"({"sub":"bob","exp":600,"sluice":{"subscribe":["*"],"publish":["*"]}})");
  const std::string bearer = "Authorization: Bearer ";
  const CurlReply star = curl_http({"-H", bearer + everything, sluiced.base() + "/metrics"});
  EXPECT_EQ(star.status(), 403) << star.text;
  const CurlReply star_sys = curl_http({"-H", bearer + everything, sluiced.base() + "/dashboard/events"});
  EXPECT_EQ(star_sys.status(), 403) << star_sys.text;
  const std::string scraper = pyjwt(R"({"sub":"prometheus","exp":600,"sluice":{"subscribe":["$metrics"]}})");
  const CurlReply scrape = curl_http({"-H", bearer + scraper, sluiced.base() + "/metrics"});
  EXPECT_EQ(scrape.status(), 200) << scrape.text;
  EXPECT_TRUE(scrape.has("sluice_")) << scrape.text;
}

TEST_F(SluicedAuth, AnonymousPatternsOpenTopicsWithoutAToken) {
  ChildProcess reader({"curl", "-sN", sluiced.base() + "/sse/public.weather"});
  EXPECT_TRUE(reader.read_until_contains("retry:", 10s)) << reader.output();
  EXPECT_EQ(publish("public.weather").status(), 401);  // reading only
}

TEST_F(SluicedAuth, AnExpiredTokenIs401InvalidToken) {
  const CurlReply reply =
      publish("news", {"-H", "Authorization: Bearer " + pyjwt(R"({"exp":-120,"sluice":{"publish":["news"]}})")});
  EXPECT_EQ(reply.status(), 401) << reply.text;
  EXPECT_TRUE(reply.has("error=\"invalid_token\"")) << reply.text;
  EXPECT_TRUE(reply.has("expired")) << reply.text;
}

TEST_F(SluicedAuth, ABadSignatureIs401InvalidToken) {
  const std::string other = pyjwt(kNewsReader, "HS256", "another-secret-0123456789abcdefghij");
  const CurlReply reply = publish("news", {"-H", "Authorization: Bearer " + other});
  EXPECT_EQ(reply.status(), 401) << reply.text;
  EXPECT_TRUE(reply.has("signature does not verify")) << reply.text;
}

TEST_F(SluicedAuth, AnUnsignedAlgNoneTokenIs401) {
  const CurlReply reply = publish("news", {"-H", "Authorization: Bearer " + pyjwt(kNewsReader, "none")});
  EXPECT_EQ(reply.status(), 401) << reply.text;
  EXPECT_TRUE(reply.has("error=\"invalid_token\"")) << reply.text;
}

TEST_F(SluicedAuth, ATokenForAnotherKeyTypeIs401) {
  const ScratchFile file("rsa.pem");
  const std::string& pem = file.path();
  ChildProcess keygen({"openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", pem});
  keygen.read_to_end(30s);
  ASSERT_EQ(keygen.wait(5s), 0) << keygen.output();
  const CurlReply reply = publish("news", {"-H", "Authorization: Bearer " + pyjwt(kNewsReader, "RS256", pem)});
  EXPECT_EQ(reply.status(), 401) << reply.text;
  EXPECT_TRUE(reply.has("RS256")) << reply.text;
}

TEST_F(SluicedAuth, ATopicTheTokenDoesNotGrantIs403) {
  const CurlReply reply = publish("prices", {"-H", "Authorization: Bearer " + pyjwt(kNewsReader)});
  EXPECT_EQ(reply.status(), 403) << reply.text;
  EXPECT_TRUE(reply.has("the token does not grant publish on 'prices'")) << reply.text;
  EXPECT_FALSE(reply.has("WWW-Authenticate")) << reply.text;
}

TEST_F(SluicedAuth, TwoAuthorizationHeadersAre401) {
  const std::string token = pyjwt(kNewsReader);
  const CurlReply reply =
      publish("news", {"-H", "Authorization: Bearer " + token, "-H", "Authorization: Bearer " + token});
  EXPECT_EQ(reply.status(), 401) << reply.text;
}

TEST_F(SluicedAuth, AWebSocketWithoutATokenIsClosed4401) {
  WsTestClient client(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_EQ(client.upgrade({.path = "/ws/news"}).status, 101);
  const std::optional<ws::ServerFrame> close = client.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 4401);
  EXPECT_EQ(close->payload.substr(2), "401 a token is needed to subscribe on 'news'");
}

// Refused for the token itself (forged, expired) rather than for what it
// grants: told the same way, 101 then 4401 with the reason, so that a
// browser's page can tell "get a new token" from a network failure.
TEST_F(SluicedAuth, AWebSocketWithAForgedOrExpiredTokenIsClosed4401) {
  const std::string expired = pyjwt(R"({"exp":-120,"sluice":{"subscribe":["news"]}})");
  for (const std::string& token : {pyjwt(kNewsReader) + "x", expired}) {
    for (const char* path : {"/ws/news", "/ws", "/pub/news"}) {
      WsTestClient client(static_cast<std::uint16_t>(sluiced.port()));
      const ws::UpgradeReply upgraded = client.upgrade({.path = path,
                                                   .extensions = "permessage-deflate",
                                                   .extra_headers = "Authorization: Bearer " + token + "\r\n"});
      ASSERT_EQ(upgraded.status, 101) << path;
      // It sends a close and nothing else: no compression is set up for it.
      EXPECT_FALSE(upgraded.header("Sec-WebSocket-Extensions")) << upgraded.head;
      const std::optional<ws::ServerFrame> close = client.read_frame();
      ASSERT_TRUE(close) << path;
      EXPECT_EQ(close->close_code(), 4401) << path;
      EXPECT_EQ(close->payload.substr(2, 4), "401 ") << close->payload;
    }
  }
  // A page of another origin is not shown why: that would tell it the
  // state of its visitor's token.
  WsTestClient foreign(static_cast<std::uint16_t>(sluiced.port()));
  EXPECT_EQ(foreign
                .upgrade({.path = "/ws/news",
                          .extra_headers = "Authorization: Bearer " + expired + "\r\nOrigin: https://evil.example\r\n"})
                .status,
            403);
}

TEST_F(SluicedAuth, AWebSocketOnATopicNotGrantedIsClosed4403) {
  WsTestClient client(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_EQ(client.upgrade({.path = "/ws/prices", .extra_headers = "Authorization: Bearer " + pyjwt(kNewsReader) +
                                                                     "\r\n"})
                .status,
            101);
  EXPECT_EQ(client.read_close(), 4403);
}

TEST_F(SluicedAuth, AWsSubscribeNotGrantedIsAFailedAckAndTheConnectionGoesOn) {
  WsTestClient client(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_EQ(
      client.upgrade({.path = "/ws", .extra_headers = "Authorization: Bearer " + pyjwt(kNewsReader) + "\r\n"}).status,
      101);
  client.send({.payload = R"({"op":"subscribe","topic":"prices","req":1})"});
  std::optional<ws::ServerFrame> ack = client.read_message();
  ASSERT_TRUE(ack);
  EXPECT_NE(ack->payload.find("403 the token does not grant subscribe on 'prices'"), std::string::npos)
      << ack->payload;
  client.send({.payload = R"({"op":"subscribe","topic":"news","req":2})"});
  ack = client.read_message();
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->payload.rfind(R"({"op":"ack","req":2,"ok":true)", 0), 0u) << ack->payload;
}

// Runs a script of tests/peers (its npm package `package` installed)
// against `port` with `token`; it must exit 0 and print `summary`.
void expect_peer_passes(int port, const std::string& script, const std::string& package, const std::string& token,
                        const std::string& summary) {
  const std::filesystem::path peers = std::filesystem::path(SLUICE_SOURCE_DIR) / "tests" / "peers";
  ASSERT_TRUE(std::filesystem::exists(peers / "node_modules" / package))
      << "the peers' npm packages are missing: run make peers (npm ci --prefix tests/peers)";
  ChildProcess node({"node", (peers / script).string(), std::to_string(port), token});
  node.read_to_end(90s);
  EXPECT_EQ(node.wait(5s), 0) << node.output();
  EXPECT_NE(node.output().find(summary), std::string::npos) << node.output();
}

TEST_F(SluicedAuth, NodeWsWithABearerTokenSubscribesAndWithoutOneIsClosed4401) {
  expect_peer_passes(sluiced.port(), "ws_token.mjs", "ws", pyjwt(kNewsReader),
                     "ws_token: bearer subscribe ok, ungranted 403 ack, own event received, no token closed 4401");
}

// A browser's login cookie, HttpOnly: Chromium sends it with its
// EventSource and its WebSocket by itself, and sluiced reads the token from
// it (auth.cookie_name); without it, both are refused.
TEST_F(SluicedAuth, ChromiumSendsItsHttpOnlyCookieWithEventSourceAndWebSocket) {
  expect_peer_passes(sluiced.port(), "chromium_cookie.mjs", "playwright-core", pyjwt(kNewsReader),
                     "chromium_cookie: with the HttpOnly cookie EventSource and WebSocket got the event, ungranted "
                     "topic refused, without it EventSource refused and WebSocket closed 4401");
}

TEST(SluicedAuthLimits, OverThePublishRateIs429WithRetryAfter) {
  SluicedProcess sluiced(jwt_settings({"auth.rate.publish_per_ip=1", "auth.rate.publish_per_ip_burst=1"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string auth = "Authorization: Bearer " + pyjwt(kNewsReader);
  const std::string url = sluiced.base() + "/pub/news";
  const CurlReply reply = curl_http({"-X", "POST", "-H", auth, "--data", "a", url, "--next", "-i", "-X", "POST", "-H",
                                     auth, "--data", "b", url});
  EXPECT_EQ(reply.status(), 200) << reply.text;
  EXPECT_TRUE(reply.has("HTTP/1.1 429")) << reply.text;
  EXPECT_TRUE(reply.has("Retry-After: 1\r\n")) << reply.text;
  EXPECT_TRUE(reply.has("auth.rate.publish_per_ip")) << reply.text;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedAuthLimits, TheConnectLimitCountsConnectionsNotTheRequestsOnOne) {
  SluicedProcess sluiced(jwt_settings({"auth.rate.connect_per_ip=1", "auth.rate.connect_per_ip_burst=1"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string auth = "Authorization: Bearer " + pyjwt(kNewsReader);
  const std::string url = sluiced.base() + "/pub/news";
  // Five publishes on one kept-alive connection: one connect.
  std::vector<std::string> args = {"-X", "POST", "-H", auth, "--data", "0", url};
  for (int i = 1; i < 5; ++i) args.insert(args.end(), {"--next", "-i", "-X", "POST", "-H", auth, "--data", "x", url});
  const CurlReply kept = curl_http(args);
  std::size_t ok = 0;
  for (std::size_t at = kept.text.find("HTTP/1.1 200"); at != std::string::npos;
       at = kept.text.find("HTTP/1.1 200", at + 1)) {
    ++ok;
  }
  EXPECT_EQ(ok, 5u) << kept.text;
  // A second connection within the second is over the limit.
  const CurlReply second = curl_http({"-X", "POST", "-H", auth, "--data", "y", url});
  EXPECT_EQ(second.status(), 429) << second.text;
  EXPECT_TRUE(second.has("auth.rate.connect_per_ip")) << second.text;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedAuthLimits, AnIpv6ClientIsCountedByItsAddressToo) {
  SluicedProcess sluiced(jwt_settings({"auth.rate.connect_per_ip=1", "auth.rate.connect_per_ip_burst=1"}), "[::1]:0");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string auth = "Authorization: Bearer " + pyjwt(kNewsReader);
  const std::string url = "http://[::1]:" + std::to_string(sluiced.port()) + "/pub/news";
  const CurlReply first = curl_http({"-g", "-X", "POST", "-H", auth, "--data", "x", url});
  EXPECT_EQ(first.status(), 200) << first.text;
  // A second connection from ::1 within the second, forged token or not:
  // over the limit, answered before its signature is looked at.
  const CurlReply second = curl_http({"-g", "-X", "POST", "-H", "Authorization: Bearer not.a.token", "--data", "y", url});
  EXPECT_EQ(second.status(), 429) << second.text;
  EXPECT_TRUE(second.has("auth.rate.connect_per_ip")) << second.text;
  EXPECT_EQ(sluiced.stop(), 0);
}

// With `rate` (auth.rate.X_per_ip) at one a second, the second WebSocket
// from the address within the second is upgraded, then closed 4429 naming
// the key: a browser's page reads why, which a refused upgrade's 429 would
// not tell it.
void expect_second_websocket_closed_4429(const std::string& rate) {
  SluicedProcess sluiced(jwt_settings({rate + "=1", rate + "_burst=1"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string auth = "Authorization: Bearer " + pyjwt(kNewsReader) + "\r\n";
  WsTestClient first(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_EQ(first.upgrade({.path = "/ws/news", .extra_headers = auth}).status, 101);
  WsTestClient second(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_EQ(second.upgrade({.path = "/ws/news", .extra_headers = auth}).status, 101);
  const std::optional<ws::ServerFrame> close = second.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 4429);
  EXPECT_NE(close->payload.find(rate), std::string::npos) << close->payload;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedAuthLimits, OverTheSubscribeRateAWebSocketIsClosed4429) {
  expect_second_websocket_closed_4429("auth.rate.subscribe_per_ip");
}

TEST(SluicedAuthLimits, OverTheConnectRateAWebSocketIsClosed4429) {
  expect_second_websocket_closed_4429("auth.rate.connect_per_ip");
}

TEST(SluicedAuthLimits, WithQueryTokensOffATokenInTheUrlIsNotRead) {
  SluicedProcess sluiced(jwt_settings({"auth.query_token=0"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string token = pyjwt(kNewsReader);
  EXPECT_EQ(curl_http({"-X", "POST", "--data", "x", sluiced.base() + "/pub/news?token=" + token}).status(), 401);
  EXPECT_EQ(sluiced.stop(), 0);
  SluicedProcess on(jwt_settings());
  ASSERT_NE(on.port(), 0) << on.output();
  EXPECT_EQ(curl_http({"-X", "POST", "--data", "x", on.base() + "/pub/news?token=" + token}).status(), 200);
  EXPECT_EQ(on.stop(), 0);
}

// Secure by default: the binary refuses to start where it should not.
struct BadStart {
  std::vector<std::string> args;
  std::string must_say;
};

TEST(SluicedAuthStart, WithoutAuthANonLoopbackListenStopsNamingTheSetting) {
  const std::vector<BadStart> cases = {
      {{"--listen", "0.0.0.0:0"}, "config key 'listen' is 0.0.0.0:0, not a loopback address, and auth.mode is none"},
      {{"--listen", "[::]:0"}, "config key 'listen' is [::]:0, not a loopback address, and auth.mode is none"},
      {{"--set", "auth.mode=jwt"}, "auth.jwt_secret"},
      {{"--set", "auth.mode=jwt", "--set", "auth.jwt_secret=short"}, "'auth.jwt_secret'"},
      {{"--set", "auth.mode=tokens"}, "config key 'auth.mode' must be one of none, open, jwt"},
      {{"--set", "auth.clock_skew_ms=-1"}, "'auth.clock_skew_ms' must be an integer between 0 and 600000"},
      {{"--set", "auth.mode=jwt", "--set", "auth.jwt_secret=" + kSecret, "--set", "auth.anonymous_subscribe=a*b"},
       "auth.anonymous_subscribe"},
      {{"--set", "auth.mode=jwt", "--set", "auth.jwt_public_key_file=/nonexistent.pem"},
       "auth.jwt_public_key_file"},
      {{"--set", "auth.mode=jwt", "--set", "auth.jwt_secret_file=/nonexistent.secret"},
       "config key 'auth.jwt_secret_file': cannot open /nonexistent.secret"},
      {{"--set", "auth.mode=jwt", "--set", "auth.jwt_secret=" + kSecret, "--set", "auth.jwt_secret_file=/x"},
       "config key 'auth.jwt_secret_file': give it or auth.jwt_secret, not both"},
      {{"--set", "auth.jwt_secret_file=/x"}, "config key 'auth.jwt_secret_file' is set but auth.mode is none"},
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

// The secret kept in a file, out of the config and the process list: the
// server and `sluice token` read the same first line of it.
TEST(SluicedAuthStart, ASecretFileChecksTokensMintedFromThatFile) {
  const ScratchFile secret("auth_secret_file");
  std::ofstream(secret.path()) << "file-secret-0123456789abcdef-0123456789\n";
  SluicedProcess sluiced({"auth.mode=jwt", "auth.jwt_secret_file=" + secret.path(), "threads=1"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  ChildProcess mint({SLUICE_CLI_PATH, "token", "--secret-file", secret.path(), "--publish", "news", "--ttl", "60"});
  mint.read_to_end(10s);
  ASSERT_EQ(mint.wait(5s), 0) << mint.output();
  std::string token = mint.output();
  token.erase(token.find_last_not_of("\r\n") + 1);
  const auto publish = [&](const std::string& bearer) {
    return curl_http({"-X", "POST", "--data-binary", "hello", "-H", "Authorization: Bearer " + bearer,
                      sluiced.base() + "/pub/news"});
  };
  EXPECT_EQ(publish(token).status(), 200);
  const CurlReply other = publish(pyjwt(kNewsReader));
  EXPECT_EQ(other.status(), 401) << other.text;
  EXPECT_EQ(sluiced.output().find("file-secret"), std::string::npos) << sluiced.output();
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

TEST(SluicedAuthStart, AuthModeOpenAllowsAnyAddressExplicitly) {
  SluicedProcess sluiced({"auth.mode=open"}, "0.0.0.0:0");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_EQ(curl_http({"-X", "POST", "--data", "x", sluiced.base() + "/pub/news"}).status(), 200);
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedAuthStart, AuthModeJwtAllowsAnyAddress) {
  SluicedProcess sluiced(jwt_settings(), "0.0.0.0:0");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_EQ(curl_http({"-X", "POST", "--data", "x", sluiced.base() + "/pub/news"}).status(), 401);
  EXPECT_EQ(sluiced.stop(), 0);
}

// One Origin allow-list for SSE, POST and WebSocket; with auth on, no `*`.
class SluicedOrigins : public testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(sluiced.port(), 0) << sluiced.output(); }
  void TearDown() override { EXPECT_EQ(sluiced.stop(), 0) << sluiced.output(); }

  SluicedProcess sluiced{jwt_settings({"ws.allowed_origins=https://app.example"})};
  std::string token = pyjwt(kNewsReader);
};

TEST_F(SluicedOrigins, ACrossOriginTextPlainPostFromAnotherSiteIs403) {
  // What a page on another site can make a browser send with the visitor's
  // cookie, without a preflight.
  const CurlReply reply = curl_http({"-X", "POST", "-H", "Origin: https://evil.example", "-H",
                                     "Content-Type: text/plain", "--cookie", "sluice_token=" + token, "--data", "x",
                                     sluiced.base() + "/pub/news"});
  EXPECT_EQ(reply.status(), 403) << reply.text;
  EXPECT_TRUE(reply.has("origin not allowed")) << reply.text;
}

TEST_F(SluicedOrigins, AnSseStreamFromAnotherSiteIs403) {
  const CurlReply reply = curl_http({"-H", "Origin: https://evil.example", "--cookie", "sluice_token=" + token,
                                     sluiced.base() + "/sse/news"});
  EXPECT_EQ(reply.status(), 403) << reply.text;
}

TEST_F(SluicedOrigins, AWebSocketFromAnotherSiteIs403) {
  WsTestClient client(static_cast<std::uint16_t>(sluiced.port()));
  EXPECT_EQ(client.upgrade({.path = "/ws/news",
                            .origin = "https://evil.example",
                            .extra_headers = "Cookie: sluice_token=" + token + "\r\n"})
                .status,
            403);
}

TEST_F(SluicedOrigins, ThePreflightIsAnsweredForAListedOriginAndRefusedOtherwise) {
  const CurlReply listed = curl_http({"-X", "OPTIONS", "-H", "Origin: https://app.example", "-H",
                                      "Access-Control-Request-Method: POST", sluiced.base() + "/pub/news"});
  EXPECT_EQ(listed.status(), 204) << listed.text;
  EXPECT_TRUE(listed.has("Access-Control-Allow-Origin: https://app.example\r\n")) << listed.text;
  EXPECT_TRUE(listed.has("Access-Control-Allow-Headers: Authorization")) << listed.text;
  EXPECT_FALSE(listed.has("Access-Control-Allow-Origin: *")) << listed.text;
  EXPECT_FALSE(listed.has("Content-Length")) << listed.text;  // a 204 may not carry one
  const CurlReply other = curl_http({"-X", "OPTIONS", "-H", "Origin: https://evil.example", "-H",
                                     "Access-Control-Request-Method: POST", sluiced.base() + "/pub/news"});
  EXPECT_EQ(other.status(), 403) << other.text;
}

TEST_F(SluicedOrigins, AListedOriginReadsAndPublishesWithItsCookieAndNeverSeesStar) {
  ChildProcess reader({"curl", "-sNi", "-H", "Origin: https://app.example", "--cookie", "sluice_token=" + token,
                       sluiced.base() + "/sse/news"});
  ASSERT_TRUE(reader.read_until_contains("retry:", 10s)) << reader.output();
  EXPECT_NE(reader.output().find("Access-Control-Allow-Origin: https://app.example\r\n"), std::string::npos);
  EXPECT_NE(reader.output().find("Access-Control-Allow-Credentials: true\r\n"), std::string::npos);
  const CurlReply published = curl_http({"-X", "POST", "-H", "Origin: https://app.example", "--cookie",
                                         "sluice_token=" + token, "--data", "hi", sluiced.base() + "/pub/news"});
  EXPECT_EQ(published.status(), 200) << published.text;
  EXPECT_TRUE(published.has("Access-Control-Allow-Origin: https://app.example\r\n")) << published.text;
  EXPECT_TRUE(reader.read_until_contains("data: hi", 10s)) << reader.output();
  const CurlReply no_origin = curl_http({"-H", "Authorization: Bearer " + token, "-m", "1", sluiced.base() + "/sse/news"});
  EXPECT_FALSE(no_origin.has("Access-Control-Allow-Origin")) << no_origin.text;
}

TEST(SluicedOriginsWithoutAList, WithAuthOnOnlyTheServersOwnOriginPasses) {
  SluicedProcess sluiced(jwt_settings());
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string auth = "Authorization: Bearer " + pyjwt(kNewsReader);
  EXPECT_EQ(curl_http({"-X", "POST", "-H", auth, "-H", "Origin: https://evil.example", "--data", "x",
                       sluiced.base() + "/pub/news"})
                .status(),
            403);
  const std::string own = "Origin: http://127.0.0.1:" + std::to_string(sluiced.port());
  EXPECT_EQ(curl_http({"-X", "POST", "-H", auth, "-H", own, "--data", "x", sluiced.base() + "/pub/news"}).status(),
            200);
  EXPECT_EQ(sluiced.stop(), 0);
}

}  // namespace
}  // namespace sluice::test
