// The admin API on the real sluiced, over real sockets: curl lists topics
// and one topic's kept events after a test published them, closes a
// connection named by the access log and sees its client end, and drains
// the node (its subscribers are told, new clients are refused, the process
// exits 0). With tokens, a caller without a grant of "$admin" is refused;
// off loopback without tokens, sluiced does not start.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "h2_test_client.hpp"
#include "sluiced_process.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"
#include "transport/h2_preface.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using nlohmann::json;
using transport::test::H2TestClient;
using ws::WsTestClient;

const std::string kAdminSecret = "admin-test-secret-0123456789abcdef";

// sluiced with an admin listener on a free loopback port, the access log
// on (it names each connection's id) and two loops, so that a close and a
// drain have to reach a loop other than the admin listener's.
class AdminNode {
 public:
  explicit AdminNode(const std::vector<std::string>& settings) : process_(argv(settings)) {
    if (!process_.read_until_contains("admin API on", 10s) || !process_.read_until_contains("\n", 10s)) return;
    port_ = port_after(process_.output(), "listening on ");
    admin_port_ = port_after(process_.output(), "admin API on ");
  }

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::string admin() const { return "http://127.0.0.1:" + std::to_string(admin_port_); }
  [[nodiscard]] std::uint16_t admin_port() const { return admin_port_; }
  ChildProcess& process() { return process_; }
  // The id the access log gave the connection that asked for `target`.
  std::optional<std::uint64_t> connection_of(const std::string& target) {
    const std::string needle = "target=" + target + " ";
    if (!process_.read_until_contains(needle, 10s)) return std::nullopt;
    const std::string& out = process_.output();
    const std::size_t conn = out.find("conn=", out.find(needle));
    if (conn == std::string::npos) return std::nullopt;
    return std::stoull(out.substr(conn + 5));
  }

 private:
  static std::vector<std::string> argv(const std::vector<std::string>& settings) {
    std::vector<std::string> args = {env_path("SLUICED"), "--listen", "127.0.0.1:0", "--threads", "2",
                                     "--set",             "admin.listen=127.0.0.1:0", "--set", "log.access=1"};
    for (const std::string& s : settings) args.insert(args.end(), {"--set", s});
    return args;
  }
  static std::uint16_t port_after(const std::string& output, const std::string& label) {
    const std::size_t at = output.find(label);
    if (at == std::string::npos) return 0;
    const std::size_t colon = output.find(':', at + label.size());
    return static_cast<std::uint16_t>(std::stoi(output.substr(colon + 1)));
  }

  ChildProcess process_;
  std::uint16_t port_ = 0;
  std::uint16_t admin_port_ = 0;
};

// The body of a curl -i reply (after the blank line ending the head).
std::string body_of(const CurlReply& reply) {
  const std::size_t end = reply.text.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : reply.text.substr(end + 4);
}

int publish(std::uint16_t port, const std::string& topic, const std::string& data) {
  return http_request(port, "POST", "/pub/" + topic, data).status;
}

// Signs `claims` (exp in seconds from now) with PyJWT, an implementation
// independent of sluice's.
std::string pyjwt(const std::string& claims) {
  const std::string script =
      "import jwt, json, sys, time\n"
      "c = json.loads(sys.argv[1]); c['exp'] = int(time.time()) + c['exp']\n"
      "print(jwt.encode(c, sys.argv[2], algorithm='HS256'))\n";
  ChildProcess python({"/usr/bin/python3", "-c", script, claims, kAdminSecret});
  python.read_to_end(10s);
  EXPECT_EQ(python.wait(5s), 0) << python.output();
  std::string token = python.output();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return token;
}

// The admin API speaks HTTP/1.1 only: an HTTP/2 client (curl's default
// over TLS) is told HTTP/1.1 is required, and curl then asks again over
// it. Before, an HTTP/2 client on the admin listener reached the public
// routes (POST /pub answered 200, /admin/topics 404).
TEST(SluicedAdmin, AnHttp2ClientIsToldTheAdminApiSpeaksHttp11) {
  AdminNode node({"dashboard.enabled=0"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  TestClient raw(node.admin_port());
  raw.send(std::string(transport::kH2Preface) + std::string("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9));
  ASSERT_TRUE(raw.read_until_closed(10s));
  EXPECT_EQ(raw.buffer(), transport::kH2AdminHttp11Only);
  const CurlReply h2 = curl_http({"--http2-prior-knowledge", "-v", "-X", "POST", "-d", "x", node.admin() + "/pub/t"});
  EXPECT_TRUE(h2.has("GOAWAY, error=13")) << h2.text;
  EXPECT_FALSE(h2.has("\"topic\":\"t\"")) << h2.text;
  EXPECT_EQ(curl_http({node.admin() + "/admin/topics"}).status(), 200);
}

TEST(SluicedAdmin, ListsTopicsWithSubscribersAPageAtATime) {
  AdminNode node({"dashboard.enabled=0"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  SseSubscriber reader(node.port(), "/sse/news");
  ASSERT_TRUE(reader.opened());
  ASSERT_EQ(publish(node.port(), "news", "one"), 200);
  ASSERT_EQ(publish(node.port(), "news", "two"), 200);
  ASSERT_EQ(publish(node.port(), "alerts", "three"), 200);
  ASSERT_TRUE(reader.wait_for(2));

  const CurlReply all = curl_http({node.admin() + "/admin/topics"});
  ASSERT_EQ(all.status(), 200) << all.text;
  EXPECT_TRUE(all.has("Content-Type: application/json")) << all.text;
  const json listing = json::parse(body_of(all));
  ASSERT_EQ(listing["topics"].size(), 2u) << listing;
  EXPECT_EQ(listing["total"], 2);
  EXPECT_TRUE(listing["next"].is_null());
  const json& alerts = listing["topics"][0];  // name order
  const json& news = listing["topics"][1];
  EXPECT_EQ(alerts["topic"], "alerts");
  EXPECT_EQ(alerts["subscribers"], 0);
  EXPECT_EQ(news["topic"], "news");
  EXPECT_EQ(news["subscribers"], 1);
  EXPECT_EQ(news["published"], 2);
  EXPECT_EQ(news["kept"], 2);
  EXPECT_GT(news["publish_rate"].get<double>(), 0.0);
  EXPECT_GE(news["last_publish_age_ms"].get<std::int64_t>(), 0);

  // A page of one, then the page after its cursor.
  const json first = json::parse(body_of(curl_http({node.admin() + "/admin/topics?limit=1"})));
  ASSERT_EQ(first["topics"].size(), 1u) << first;
  EXPECT_EQ(first["topics"][0]["topic"], "alerts");
  ASSERT_EQ(first["next"], "alerts");
  const json second = json::parse(body_of(curl_http({node.admin() + "/admin/topics?limit=1&after=alerts"})));
  ASSERT_EQ(second["topics"].size(), 1u) << second;
  EXPECT_EQ(second["topics"][0]["topic"], "news");
  EXPECT_TRUE(second["next"].is_null());

  // The limit has a ceiling (admin.max_topics), said in the refusal.
  const CurlReply too_many = curl_http({node.admin() + "/admin/topics?limit=1001"});
  EXPECT_EQ(too_many.status(), 400);
  EXPECT_TRUE(too_many.has("admin.max_topics")) << too_many.text;
  // The public listener has no admin routes.
  EXPECT_EQ(http_request(node.port(), "GET", "/admin/topics").status, 404);
}

TEST(SluicedAdmin, ShowsOneTopicsKeptEventsButNotTheirData) {
  AdminNode node({"dashboard.enabled=0", "admin.history_events=2"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  ASSERT_EQ(publish(node.port(), "prices", "first-secret"), 200);
  ASSERT_EQ(publish(node.port(), "prices", "12345"), 200);
  ASSERT_EQ(http_request(node.port(), "POST", "/pub/prices?event=tick", "1234567").status, 200);

  const CurlReply reply = curl_http({node.admin() + "/admin/topics/prices"});
  ASSERT_EQ(reply.status(), 200) << reply.text;
  EXPECT_FALSE(reply.has("secret")) << reply.text;
  const json topic = json::parse(body_of(reply));
  EXPECT_EQ(topic["topic"], "prices");
  EXPECT_EQ(topic["kept"], 3);
  // The newest two (admin.history_events), oldest first, sized without the
  // event's name.
  ASSERT_EQ(topic["events"].size(), 2u) << topic;
  EXPECT_TRUE(topic["truncated"].get<bool>());
  const std::string id = topic["events"][0]["id"];
  EXPECT_EQ(id.substr(id.find(':')), ":2");
  EXPECT_EQ(topic["events"][0]["bytes"], 5);
  EXPECT_EQ(topic["events"][1]["bytes"], 7);
  EXPECT_GE(topic["events"][0]["age_ms"].get<std::int64_t>(), topic["events"][1]["age_ms"].get<std::int64_t>());

  EXPECT_EQ(curl_http({node.admin() + "/admin/topics/nothing.here"}).status(), 404);
  EXPECT_EQ(curl_http({"-X", "POST", node.admin() + "/admin/topics/prices"}).status(), 405);
}

TEST(SluicedAdmin, ClosesTheConnectionItNames) {
  AdminNode node({"dashboard.enabled=0"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  SseSubscriber kept(node.port(), "/sse/news");
  ASSERT_TRUE(kept.opened());
  SseSubscriber closed(node.port(), "/sse/gone");
  ASSERT_TRUE(closed.opened());
  WsTestClient socket(node.port());
  ASSERT_TRUE(socket.open("/ws/gone.too"));
  const std::optional<std::uint64_t> sse_id = node.connection_of("/sse/gone");
  const std::optional<std::uint64_t> ws_id = node.connection_of("/ws/gone.too");
  ASSERT_TRUE(sse_id && ws_id) << node.process().output();

  const CurlReply reply =
      curl_http({"-X", "POST", node.admin() + "/admin/connections/" + std::to_string(*sse_id) + "/close"});
  EXPECT_EQ(reply.status(), 202) << reply.text;
  // The stream is told to reconnect, then ends.
  EXPECT_TRUE(closed.client().read_until_contains(": server going away, reconnect\nretry: ")) << closed.client().buffer();
  EXPECT_TRUE(closed.client().read_until_closed());
  EXPECT_EQ(curl_http({"-X", "POST", node.admin() + "/admin/connections/" + std::to_string(*ws_id) + "/close"})
                .status(),
            202);
  // As the stream, the WebSocket is told to come back (it was told the
  // server was shutting down).
  const std::optional<ws::ServerFrame> goodbye = socket.read_frame();
  ASSERT_TRUE(goodbye);
  EXPECT_EQ(goodbye->close_code(), 1001);
  EXPECT_EQ(goodbye->payload.substr(2), "server going away, reconnect");

  // The other subscriber is untouched.
  ASSERT_EQ(publish(node.port(), "news", "still here"), 200);
  ASSERT_TRUE(kept.wait_for(1));
  EXPECT_EQ(kept.events()[0].data, "still here");
  EXPECT_EQ(curl_http({"-X", "POST", node.admin() + "/admin/connections/x/close"}).status(), 404);
  EXPECT_EQ(curl_http({node.admin() + "/admin/connections/1/close"}).status(), 405);
}

TEST(SluicedAdmin, DrainTellsEveryClientRefusesNewOnesAndExits) {
  // The linger outlasts the test's checks: a WebSocket that has not
  // answered the close holds the drain open until it does.
  AdminNode node({"dashboard.enabled=0", "timeouts.linger_ms=20000", "admin.drain_timeout_ms=20000"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  std::optional<SseSubscriber> stream;
  stream.emplace(node.port(), "/sse/news");
  ASSERT_TRUE(stream->opened());
  WsTestClient socket(node.port());
  ASSERT_TRUE(socket.open("/ws/news"));

  const CurlReply reply = curl_http({"-X", "POST", node.admin() + "/admin/drain"});
  ASSERT_EQ(reply.status(), 202) << reply.text;
  EXPECT_TRUE(reply.has("\"draining\":true")) << reply.text;
  TestClient& sse = stream->client();
  EXPECT_TRUE(sse.read_until_contains(": server going away, reconnect\nretry: ")) << sse.buffer();
  EXPECT_TRUE(sse.read_until_closed());
  stream.reset();  // its side closed too: only the WebSocket is left
  EXPECT_EQ(socket.read_close(), 1001);

  // Still draining (the WebSocket has not closed its side): nobody new is let in.
  TestClient late(node.port());
  EXPECT_FALSE(late.connected());
  TestClient late_admin(node.admin_port());
  EXPECT_FALSE(late_admin.connected());
  EXPECT_EQ(node.process().wait(100ms), -1) << "exited before its last client left";

  socket.reset();
  EXPECT_EQ(node.process().wait(10s), 0) << node.process().output();
  node.process().read_to_end(5s);
  EXPECT_NE(node.process().output().find("sluiced stopped"), std::string::npos) << node.process().output();
}

// Each loop lists its own connections; the page is in id order, the admin
// caller's own connection among them.
TEST(SluicedAdmin, ListsConnectionsWithTransportTopicsQueuedBytesAndAge) {
  AdminNode node({"dashboard.enabled=0"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  SseSubscriber reader(node.port(), "/sse/news?topic=alerts");
  ASSERT_TRUE(reader.opened());
  WsTestClient socket(node.port());
  ASSERT_TRUE(socket.open("/ws/prices"));
  // logfmt quotes a target with a query.
  const std::optional<std::uint64_t> sse_id = node.connection_of("\"/sse/news?topic=alerts\"");
  const std::optional<std::uint64_t> ws_id = node.connection_of("/ws/prices");
  ASSERT_TRUE(sse_id && ws_id) << node.process().output();

  const CurlReply reply = curl_http({node.admin() + "/admin/connections"});
  ASSERT_EQ(reply.status(), 200) << reply.text;
  const json listing = json::parse(body_of(reply));
  const json& rows = listing["connections"];
  ASSERT_EQ(rows.size(), 3u) << listing;  // the stream, the WebSocket and this request
  EXPECT_EQ(listing["total"], 3);
  EXPECT_TRUE(listing["next"].is_null());
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_LT(rows[i - 1]["id"], rows[i]["id"]) << listing;
  const auto row_of = [&](std::uint64_t id) {
    for (const json& row : rows) {
      if (row["id"] == id) return row;
    }
    return json();
  };
  const json sse = row_of(*sse_id);
  ASSERT_FALSE(sse.is_null()) << listing;
  EXPECT_EQ(sse["transport"], "sse");
  EXPECT_EQ(sse["topics"], json::array({"news", "alerts"}));
  EXPECT_EQ(sse["queued_bytes"], 0);
  EXPECT_GE(sse["age_ms"].get<std::int64_t>(), 0);
  EXPECT_EQ(sse["peer"].get<std::string>().rfind("127.0.0.1:", 0), 0u) << sse;
  const json ws = row_of(*ws_id);
  ASSERT_FALSE(ws.is_null()) << listing;
  EXPECT_EQ(ws["transport"], "ws");
  EXPECT_EQ(ws["topics"], json::array({"prices"}));

  // A page of one, then the page after its cursor.
  const json first = json::parse(body_of(curl_http({node.admin() + "/admin/connections?limit=1"})));
  ASSERT_EQ(first["connections"].size(), 1u) << first;
  ASSERT_TRUE(first["next"].is_number()) << first;
  const std::string after = std::to_string(first["next"].get<std::uint64_t>());
  const json second = json::parse(body_of(curl_http({node.admin() + "/admin/connections?limit=1&after=" + after})));
  ASSERT_EQ(second["connections"].size(), 1u) << second;
  EXPECT_GT(second["connections"][0]["id"], first["connections"][0]["id"]);

  // The limit has a ceiling (admin.max_connections), said in the refusal.
  const CurlReply too_many = curl_http({node.admin() + "/admin/connections?limit=1001"});
  EXPECT_EQ(too_many.status(), 400);
  EXPECT_TRUE(too_many.has("admin.max_connections")) << too_many.text;
  EXPECT_EQ(curl_http({node.admin() + "/admin/connections?after=x"}).status(), 400);
  EXPECT_EQ(curl_http({"-X", "POST", node.admin() + "/admin/connections"}).status(), 405);
}

// An HTTP/2 connection carries several streams: its row gathers their
// topics, each once.
TEST(SluicedAdmin, AnHttp2ConnectionIsListedWithTheTopicsOfEveryStream) {
  AdminNode node({"dashboard.enabled=0"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  H2TestClient client(node.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t first = client.request("GET", "/sse/news");
  const std::int32_t second = client.request("GET", "/sse/alerts?topic=news");
  ASSERT_TRUE(client.pump([&] {
    return client.stream(first).body.find("retry:") != std::string::npos &&
           client.stream(second).body.find("retry:") != std::string::npos;
  }));
  const CurlReply reply = curl_http({node.admin() + "/admin/connections"});
  ASSERT_EQ(reply.status(), 200) << reply.text;
  const json listing = json::parse(body_of(reply));
  json h2;
  for (const json& row : listing["connections"]) {
    if (row["transport"] == "h2") h2 = row;
  }
  ASSERT_FALSE(h2.is_null()) << listing;
  EXPECT_EQ(h2["topics"], json::array({"alerts", "news"})) << listing;
}

TEST(SluicedAdmin, ClosingAConnectionThatIsNotOpenIs404) {
  AdminNode node({"dashboard.enabled=0"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  EXPECT_EQ(curl_http({"-X", "POST", node.admin() + "/admin/connections/999999/close"}).status(), 404);
  EXPECT_EQ(curl_http({"-X", "POST", node.admin() + "/admin/connections/0/close"}).status(), 404);
  std::optional<SseSubscriber> gone;
  gone.emplace(node.port(), "/sse/news");
  ASSERT_TRUE(gone->opened());
  const std::optional<std::uint64_t> id = node.connection_of("/sse/news");
  ASSERT_TRUE(id) << node.process().output();
  const std::string close = node.admin() + "/admin/connections/" + std::to_string(*id) + "/close";
  gone.reset();
  // Once its loop has seen it go, the id names nothing.
  bool not_found = false;
  for (int i = 0; i < 100 && !not_found; ++i) {
    const CurlReply reply = curl_http({"-X", "POST", close});
    not_found = reply.status() == 404;
    if (!not_found) {
      ASSERT_EQ(reply.status(), 202) << reply.text;
      std::this_thread::sleep_for(50ms);  // polling for the close, bounded: 100 tries
    }
  }
  EXPECT_TRUE(not_found);
}

// A client that does not answer the goodbye keeps the drain waiting only
// until admin.drain_timeout_ms, far below the linger it would otherwise get.
TEST(SluicedAdmin, DrainEndsTheStreamsStillOpenAtItsTimeout) {
  AdminNode node({"dashboard.enabled=0", "timeouts.linger_ms=60000", "admin.drain_timeout_ms=1000"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  WsTestClient silent(node.port());
  ASSERT_TRUE(silent.open("/ws/news"));
  SseSubscriber stream(node.port(), "/sse/news");
  ASSERT_TRUE(stream.opened());

  const auto asked = std::chrono::steady_clock::now();
  const CurlReply reply = curl_http({"-X", "POST", node.admin() + "/admin/drain"});
  ASSERT_EQ(reply.status(), 202) << reply.text;
  EXPECT_TRUE(reply.has("\"timeout_ms\":1000")) << reply.text;
  // The WebSocket is told (1001) and never answers; the process still ends,
  // and with it the connection, long before the 60 s linger.
  EXPECT_EQ(silent.read_close(), 1001);
  EXPECT_EQ(node.process().wait(20s), 0) << node.process().output();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 30s);
  EXPECT_TRUE(silent.wait_closed(5s));
  EXPECT_TRUE(stream.client().read_until_closed(5s));
}

// The admin listener's connections count in max_connections but get in
// past it, 16 more: an operator can still reach a full node to drain it.
TEST(SluicedAdmin, AFullNodeStillLetsTheOperatorInSixteenMore) {
  AdminNode node({"dashboard.enabled=0", "max_connections=2"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  SseSubscriber first(node.port(), "/sse/a");
  SseSubscriber second(node.port(), "/sse/b");
  ASSERT_TRUE(first.opened() && second.opened());
  EXPECT_EQ(http_request(node.port(), "GET", "/healthz").status, 503);
  std::vector<std::unique_ptr<TestClient>> operators;
  for (int i = 0; i < 16; ++i) {
    operators.push_back(std::make_unique<TestClient>(node.admin_port()));
    operators.back()->send("GET /admin/topics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    ASSERT_EQ(read_reply(*operators.back()).status, 200) << i;
  }
  TestClient one_more(node.admin_port());
  one_more.send("GET /admin/topics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(read_reply(one_more).status, 503);
}

TEST(SluicedAdmin, WithTokensOnlyAGrantOfAdminReadsAndActs) {
  AdminNode node({"dashboard.enabled=0", "auth.mode=jwt", "auth.jwt_secret=" + kAdminSecret});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  const std::string bearer = "Authorization: Bearer ";
  EXPECT_EQ(curl_http({node.admin() + "/admin/topics"}).status(), 401);
  const std::string everything = pyjwt(R"({"sub":"app","exp":600,"sluice":{"subscribe":["*"],"publish":["*"]}})");
  EXPECT_EQ(curl_http({"-H", bearer + everything, node.admin() + "/admin/topics"}).status(), 403);
  const std::string reader = pyjwt(R"({"sub":"ops","exp":600,"sluice":{"subscribe":["$admin"]}})");
  EXPECT_EQ(curl_http({"-H", bearer + reader, node.admin() + "/admin/topics"}).status(), 200);
  // Reading is not acting: the drain needs "$admin" among the publish grants.
  EXPECT_EQ(curl_http({"-X", "POST", "-H", bearer + reader, node.admin() + "/admin/drain"}).status(), 403);
  const std::string actor = pyjwt(R"({"sub":"ops","exp":600,"sluice":{"publish":["$admin"]}})");
  // Let through: the answer is about the connection, which does not exist.
  EXPECT_EQ(
      curl_http({"-X", "POST", "-H", bearer + actor, node.admin() + "/admin/connections/999999/close"}).status(),
      404);
  // A web page cannot act through the operator's browser.
  EXPECT_EQ(curl_http({"-H", bearer + reader, "-H", "Origin: https://evil.example", node.admin() + "/admin/topics"})
                .status(),
            403);
  node.process().signal(SIGTERM);
  EXPECT_EQ(node.process().wait(10s), 0);
}

TEST(SluicedAdmin, OffLoopbackWithoutTokensItDoesNotStart) {
  ChildProcess open_mode({env_path("SLUICED"), "--set", "admin.listen=0.0.0.0:0", "--set", "auth.mode=open"});
  EXPECT_EQ(open_mode.wait(10s), 2);
  open_mode.read_to_end(5s);
  EXPECT_NE(open_mode.output().find("config key 'admin.listen' is 0.0.0.0:0, not a loopback address"),
            std::string::npos)
      << open_mode.output();
  ChildProcess malformed({env_path("SLUICED"), "--set", "admin.listen=nowhere"});
  EXPECT_EQ(malformed.wait(10s), 2);
  malformed.read_to_end(5s);
  EXPECT_NE(malformed.output().find("config key 'admin.listen' must be empty or HOST:PORT"), std::string::npos)
      << malformed.output();
}

// With a certificate configured, the admin listener speaks TLS as the
// public port does, with the same certificate: curl verifying it against
// the test CA is served, and a client speaking plain HTTP there gets no
// answer but a closed connection (its bytes are no TLS handshake).
class SluicedAdminTls : public ServerCertTest {
 protected:
  SluicedAdminTls() : ServerCertTest("admin") {}
};

TEST_F(SluicedAdminTls, TheAdminListenerSpeaksTlsWithTheServersCertificate) {
  AdminNode node({"tls.cert_file=" + cert_.cert_file, "tls.key_file=" + cert_.key_file, "dashboard.enabled=0",
                  "pool.prefault=0"});
  ASSERT_NE(node.admin_port(), 0) << node.process().output();
  const std::string public_url = "https://127.0.0.1:" + std::to_string(node.port());
  const std::string admin_url = "https://127.0.0.1:" + std::to_string(node.admin_port());
  const CurlReply published =
      curl_http({"--http1.1", "--cacert", certs_.ca_file(), "-d", "over tls", public_url + "/pub/secure"});
  ASSERT_EQ(published.status(), 200) << published.text;

  const CurlReply listing = curl_http({"--http1.1", "--cacert", certs_.ca_file(), admin_url + "/admin/topics"});
  ASSERT_EQ(listing.status(), 200) << listing.text;
  const json topics = json::parse(body_of(listing));
  ASSERT_EQ(topics["topics"].size(), 1u) << topics;
  EXPECT_EQ(topics["topics"][0]["topic"], "secure");
  EXPECT_EQ(topics["topics"][0]["published"], 1);

  TestClient plain(node.admin_port());
  plain.send("GET /admin/topics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_TRUE(plain.read_until_closed(5s));
  EXPECT_NE(plain.buffer().find("this port speaks TLS"), std::string::npos) << plain.buffer();
  EXPECT_EQ(plain.buffer().find("topics"), std::string::npos) << plain.buffer();
}

}  // namespace
}  // namespace sluice::test
