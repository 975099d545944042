// The Host allow-list (http.allowed_hosts) on the real sluiced, with curl
// as the client: a request naming another Host, as a DNS-rebound page's
// does, is answered 421 on every route and over HTTP/1.1 and HTTP/2 alike,
// and publishes nothing; the loopback names pass by default; a configured
// list replaces the default, `*` opens it, and a bad entry stops the start
// with a line naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "child_process.hpp"
#include "sluiced_process.hpp"

namespace sluice::test {
namespace {

const std::string kEvil = "Host: evil.example";

std::vector<std::string> websocket_upgrade() {
  return {"-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13",
          "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="};
}

CurlReply get(const SluicedProcess& sluiced, const std::string& host, const std::string& path,
              std::vector<std::string> extra = {}) {
  extra.insert(extra.end(), {"-H", "Host: " + host, sluiced.base() + path});
  return curl_http(extra);
}

TEST(SluicedHosts, AnotherHostIsRefused421OnEveryRouteAndPublishesNothing) {
  SluicedProcess sluiced({});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  ChildProcess reader({"curl", "-sS", "-N", "--max-time", "20", sluiced.base() + "/sse/news"});
  ASSERT_TRUE(reader.read_until_contains("retry: ", 10s)) << reader.output();

  const CurlReply sse = curl_http({"-H", kEvil, "-H", "Accept: text/event-stream", sluiced.base() + "/sse/news"});
  EXPECT_EQ(sse.status(), 421) << sse.text;
  EXPECT_TRUE(sse.has("http.allowed_hosts")) << sse.text;
  const CurlReply post = curl_http({"-H", kEvil, "-H", "Content-Type: text/plain", "-d", "forged",
                                    sluiced.base() + "/pub/news"});
  EXPECT_EQ(post.status(), 421) << post.text;
  std::vector<std::string> upgrade = websocket_upgrade();
  upgrade.insert(upgrade.end(), {"-H", kEvil, sluiced.base() + "/ws/news"});
  const CurlReply ws = curl_http(upgrade);
  EXPECT_EQ(ws.status(), 421) << ws.text;
  // Over HTTP/2 curl sends the Host it is given as :authority.
  const CurlReply h2_sse = curl_http({"--http2-prior-knowledge", "-H", kEvil, sluiced.base() + "/sse/news"});
  EXPECT_TRUE(h2_sse.has("HTTP/2 421")) << h2_sse.text;
  const CurlReply h2_post =
      curl_http({"--http2-prior-knowledge", "-H", kEvil, "-d", "forged over h2", sluiced.base() + "/pub/news"});
  EXPECT_TRUE(h2_post.has("HTTP/2 421")) << h2_post.text;
  EXPECT_TRUE(h2_post.has("http.allowed_hosts")) << h2_post.text;

  // The refused publishes reached nobody: the reader's first event is this one.
  const CurlReply good = curl_http({"-d", "genuine", sluiced.base() + "/pub/news"});
  EXPECT_EQ(good.status(), 200) << good.text;
  ASSERT_TRUE(reader.read_until_contains("data: genuine\n", 10s)) << reader.output();
  EXPECT_EQ(reader.output().find("forged"), std::string::npos) << reader.output();
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedHosts, TheLoopbackNamesPassByDefaultOnAnyPort) {
  SluicedProcess sluiced({});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string port = std::to_string(sluiced.port());
  const std::vector<std::string> answered{"localhost",          "localhost:" + port, "LOCALHOST.:" + port,
                                          "127.0.0.1:" + port, "127.0.0.1:9",        "[::1]:" + port};
  for (const std::string& host : answered) {
    EXPECT_EQ(get(sluiced, host, "/healthz").status(), 200) << host;
  }
  std::vector<std::string> upgrade = websocket_upgrade();
  upgrade.insert(upgrade.end(), {"-H", "Host: localhost:" + port, sluiced.base() + "/ws/news"});
  // curl cannot speak WebSocket: the 101 is all it is asked for.
  upgrade.insert(upgrade.begin(), {"--max-time", "2"});
  EXPECT_EQ(curl_http(upgrade).status(), 101);
  const std::vector<std::string> refused{"evil.example", "evil.example:" + port, "localhost.evil.example",
                                         "127.0.0.2"};
  for (const std::string& host : refused) {
    EXPECT_EQ(get(sluiced, host, "/healthz").status(), 421) << host;
  }
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedHosts, AConfiguredListReplacesTheDefault) {
  SluicedProcess sluiced({"http.allowed_hosts=push.example.com, other.example:8443"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_EQ(get(sluiced, "push.example.com", "/healthz").status(), 200);
  EXPECT_EQ(get(sluiced, "Push.Example.com:1234", "/healthz").status(), 200);
  EXPECT_EQ(get(sluiced, "other.example:8443", "/healthz").status(), 200);
  EXPECT_EQ(get(sluiced, "other.example:9000", "/healthz").status(), 421);
  EXPECT_EQ(get(sluiced, "127.0.0.1", "/healthz").status(), 421);
  EXPECT_EQ(get(sluiced, "evil.example", "/sse/news").status(), 421);
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedHosts, AStarAcceptsAnyHost) {
  SluicedProcess sluiced({"http.allowed_hosts=*"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_EQ(get(sluiced, "evil.example", "/healthz").status(), 200);
  const CurlReply h2 = curl_http({"--http2-prior-knowledge", "-H", kEvil, sluiced.base() + "/healthz"});
  EXPECT_TRUE(h2.has("HTTP/2 200")) << h2.text;
  EXPECT_EQ(sluiced.stop(), 0);
}

// Tokens guard every route: a rebound page has none to send, so with no
// list configured any Host is answered, as behind a proxy that forwards
// the public name to a loopback listener.
TEST(SluicedHosts, WithTokensOnAnyHostIsAnsweredByDefault) {
  SluicedProcess sluiced({"auth.mode=jwt", "auth.jwt_secret=" + std::string(32, 'k')});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_EQ(get(sluiced, "push.example.com", "/healthz").status(), 200);
  const CurlReply post = curl_http({"-H", "Host: push.example.com", "-d", "x", sluiced.base() + "/pub/news"});
  EXPECT_EQ(post.status(), 401) << post.text;
  const CurlReply h2 =
      curl_http({"--http2-prior-knowledge", "-H", "Host: push.example.com", sluiced.base() + "/healthz"});
  EXPECT_TRUE(h2.has("HTTP/2 200")) << h2.text;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedHosts, ABadEntryStopsTheStartNamingTheKey) {
  for (const std::string& entry : std::vector<std::string>{"evil/example", "host:0", "*.example.com"}) {
    ChildProcess sluiced({env_path("SLUICED"), "--listen", "127.0.0.1:0", "--set", "http.allowed_hosts=" + entry});
    sluiced.read_to_end(10s);
    EXPECT_EQ(sluiced.wait(5s), 2) << entry;
    EXPECT_NE(sluiced.output().find("config key 'http.allowed_hosts'"), std::string::npos) << sluiced.output();
    EXPECT_NE(sluiced.output().find(entry), std::string::npos) << sluiced.output();
  }
}

}  // namespace
}  // namespace sluice::test
