// sluiced over HTTP/2, with real peers: curl by prior knowledge (h2c) and
// over TLS by ALPN, Node's built-in http2 client with 20 event streams on
// one session, headless Chromium opening 20 EventSources to one origin over
// TLS, and nghttp2's client API for what a slow or hostile client does (a
// window kept shut, rapid reset, a SETTINGS flood). Certificates are made by
// the openssl command in a temporary directory for each test (TestCerts).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "child_process.hpp"
#include "h2_test_client.hpp"
#include "sluiced_process.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"
#include "transport/h2_preface.hpp"

namespace sluice::test {
namespace {

using transport::test::H2ClientOptions;
using transport::test::H2TestClient;

const std::filesystem::path kPeers = SLUICE_SOURCE_DIR "/tests/peers";

std::vector<std::string> with_tls(const ServerCert& cert, std::vector<std::string> settings = {}) {
  settings.push_back("tls.cert_file=" + cert.cert_file);
  settings.push_back("tls.key_file=" + cert.key_file);
  return settings;
}

std::string https(const SluicedProcess& sluiced, const std::string& path) {
  return "https://127.0.0.1:" + std::to_string(sluiced.port()) + path;
}

// Runs a command to its end: its exit code and output.
struct Ran {
  int code;
  std::string output;
};
Ran run(const std::vector<std::string>& argv) {
  ChildProcess child(argv);
  child.read_to_end(30s);
  const int code = child.wait(5s);
  return {code, child.output()};
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

class SluicedH2Tls : public ServerCertTest {
 protected:
  SluicedH2Tls() : ServerCertTest("h2") {}
};

TEST(SluicedH2, CurlWithPriorKnowledgeSubscribesAndPublishes) {
  SluicedProcess sluiced({});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  ChildProcess sub({"curl", "-sS", "-i", "-N", "--max-time", "20", "--http2-prior-knowledge",
                    sluiced.base() + "/sse/news"});
  ASSERT_TRUE(sub.read_until_contains("retry: ", 10s)) << sub.output();
  EXPECT_TRUE(has(sub.output(), "HTTP/2 200")) << sub.output();
  EXPECT_TRUE(has(sub.output(), "content-type: text/event-stream")) << sub.output();
  const CurlReply pub = curl_http({"--http2-prior-knowledge", "-d", "over h2c", sluiced.base() + "/pub/news"});
  EXPECT_TRUE(pub.has("HTTP/2 200")) << pub.text;
  EXPECT_TRUE(pub.has("\"subscribers\":1")) << pub.text;
  EXPECT_TRUE(sub.read_until_contains("data: over h2c\n\n", 10s)) << sub.output();
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST_F(SluicedH2Tls, CurlTakesH2ByAlpnForStreamsAndPublishes) {
  SluicedProcess sluiced(with_tls(cert_));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  ChildProcess sub({"curl", "-sS", "-i", "-N", "--max-time", "20", "--http2", "--cacert", certs_.ca_file(),
                    https(sluiced, "/sse/secure")});
  ASSERT_TRUE(sub.read_until_contains("retry: ", 10s)) << sub.output();
  EXPECT_TRUE(has(sub.output(), "HTTP/2 200")) << sub.output();
  const CurlReply pub =
      curl_http({"--http2", "--cacert", certs_.ca_file(), "-d", "over h2 and tls", https(sluiced, "/pub/secure")});
  EXPECT_TRUE(pub.has("HTTP/2 200")) << pub.text;
  EXPECT_TRUE(pub.has("\"subscribers\":1")) << pub.text;
  EXPECT_TRUE(sub.read_until_contains("data: over h2 and tls\n\n", 10s)) << sub.output();
  // A client that offers only HTTP/1.1 is still served HTTP/1.1.
  const CurlReply old = curl_http({"--http1.1", "--cacert", certs_.ca_file(), https(sluiced, "/healthz")});
  EXPECT_TRUE(old.has("HTTP/1.1 200")) << old.text;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST_F(SluicedH2Tls, WithH2DisabledAlpnAnswersHttp11) {
  SluicedProcess sluiced(with_tls(cert_, {"h2.enabled=0"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const CurlReply reply = curl_http({"--http2", "--cacert", certs_.ca_file(), https(sluiced, "/healthz")});
  EXPECT_TRUE(reply.has("HTTP/1.1 200")) << reply.text;
  EXPECT_EQ(sluiced.stop(), 0);
}

// With HTTP/2 off, a clear-text client that opens with the preface is told
// in HTTP/2 (an HTTP/1.1 400 would read to it as a broken frame): the
// server's SETTINGS, then GOAWAY(HTTP_1_1_REQUIRED) naming no stream and the
// key, then the close. curl says so; HTTP/1.1 is served as ever.
TEST(SluicedH2, WithH2DisabledAPriorKnowledgeClientIsToldHttp11IsRequired) {
  SluicedProcess sluiced({"h2.enabled=0"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  TestClient raw(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_TRUE(raw.connected());
  raw.send(std::string(transport::kH2Preface) + std::string("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9) +
           "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(raw.read_until_closed(10s));
  const std::string goaway_payload("\x00\x00\x00\x00\x00\x00\x00\x0dh2.enabled=0", 20);
  EXPECT_EQ(raw.buffer(), std::string("\x00\x00\x00\x04\x00\x00\x00\x00\x00"
                                      "\x00\x00\x14\x07\x00\x00\x00\x00\x00", 18) + goaway_payload)
      << "nothing after the GOAWAY, not even an answer to the HTTP/1.1 request behind the preface";
  const CurlReply h2 = curl_http({"--http2-prior-knowledge", "-v", sluiced.base() + "/healthz"});
  EXPECT_TRUE(h2.has("GOAWAY, error=13")) << h2.text;
  const CurlReply old = curl_http({sluiced.base() + "/healthz"});
  EXPECT_TRUE(old.has("HTTP/1.1 200")) << old.text;
  // sluice's own client says so, once, rather than a refused stream.
  ChildProcess cli({SLUICE_CLI_PATH, "sub", "--http2-prior-knowledge", sluiced.base() + "/sse/a"});
  EXPECT_NE(cli.wait(10s), 0);
  ASSERT_TRUE(cli.read_to_end(10s));
  EXPECT_NE(cli.output().find("GOAWAY HTTP_1_1_REQUIRED"), std::string::npos) << cli.output();
  EXPECT_EQ(cli.output().find("reconnecting"), std::string::npos) << cli.output();
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedH2, NodeHttp2RunsTwentyStreamsAndPublishesOnOneSession) {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/node") || std::filesystem::exists("/usr/local/bin/node"));
  SluicedProcess sluiced({});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Ran peer = run({"node", (kPeers / "h2_sse_streams.mjs").string(), sluiced.base(), "20"});
  EXPECT_EQ(peer.code, 0) << peer.output;
  EXPECT_TRUE(has(peer.output, "20 streams on one session got their event, publishes saw 5,5,5,5 subscribers"))
      << peer.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST_F(SluicedH2Tls, NodeHttp2RunsTwentyStreamsOverTls) {
  SluicedProcess sluiced(with_tls(cert_));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Ran peer = run({"node", (kPeers / "h2_sse_streams.mjs").string(), https(sluiced, ""), "20", certs_.ca_file()});
  EXPECT_EQ(peer.code, 0) << peer.output;
  EXPECT_TRUE(has(peer.output, "20 streams on one session got their event")) << peer.output;
  EXPECT_TRUE(has(peer.output, "protocol h2")) << peer.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST_F(SluicedH2Tls, ChromiumOpensTwentyEventSourcesToOneOriginAndEveryOneReceives) {
  ASSERT_TRUE(std::filesystem::exists(kPeers / "node_modules" / "playwright-core"))
      << "the peers' npm packages are missing: run make peers";
  SluicedProcess sluiced(with_tls(cert_, {"log.access=1"}));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Ran browser = run({"node", (kPeers / "chromium_h2_streams.mjs").string(), std::to_string(sluiced.port()),
                           cert_.cert_file, "20"});
  EXPECT_EQ(browser.code, 0) << browser.output;
  EXPECT_TRUE(has(browser.output, "20 EventSource streams to one origin all received")) << browser.output;
  EXPECT_TRUE(has(browser.output, "protocol h2")) << browser.output;
  EXPECT_TRUE(has(browser.output, "the WebSocket received its event")) << browser.output;
  EXPECT_EQ(sluiced.stop(), 0);
  // The page's WebSocket went over the page's HTTP/2 connection: an
  // extended CONNECT answered 200, where over HTTP/1.1 it would be a GET
  // answered 101.
  EXPECT_TRUE(has(sluiced.output(), "method=CONNECT target=/ws/chrome-ws status=200 transport=ws"))
      << sluiced.output();
}

// Routes other than streams and publishes answer as over HTTP/1.1, or with
// a clear status.
TEST(SluicedH2, OtherRoutesAnswerClearly) {
  SluicedProcess sluiced({"ws.allowed_origins=https://app.example", "timeouts.linger_ms=100"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  H2TestClient client(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_TRUE(client.ok());
  const auto health = client.request("GET", "/healthz");
  const auto head = client.request("HEAD", "/healthz");
  const auto missing = client.request("GET", "/nowhere");
  const auto put_sse = client.request("PUT", "/sse/x", {}, "body");
  const auto get_pub = client.request("GET", "/pub/x");
  const auto no_topic = client.request("GET", "/sse");
  const auto bad_policy = client.request("GET", "/sse/x?policy=nonsense");
  const auto foreign = client.request("GET", "/sse/x", {{"origin", "https://evil.example"}});
  ASSERT_TRUE(client.pump([&] {
    for (auto id : {health, head, missing, put_sse, get_pub, no_topic, bad_policy, foreign}) {
      if (!client.stream(id).closed) return false;
    }
    return true;
  }));
  EXPECT_EQ(client.stream(health).status, 200);
  EXPECT_EQ(client.stream(health).body, "ok\n");
  EXPECT_EQ(client.stream(head).status, 200);
  EXPECT_TRUE(client.stream(head).body.empty());
  EXPECT_EQ(client.stream(missing).status, 404);
  EXPECT_EQ(client.stream(put_sse).status, 405);
  EXPECT_EQ(client.stream(get_pub).status, 405);
  EXPECT_EQ(client.stream(no_topic).status, 400);
  EXPECT_EQ(client.stream(bad_policy).status, 400);
  EXPECT_EQ(client.stream(foreign).status, 403);
  EXPECT_EQ(client.stream(foreign).body, "origin not allowed (ws.allowed_origins)\n");
  EXPECT_EQ(sluiced.stop(), 0);
}

// A request whose header list is past a limit is answered 431 with a line
// naming the key and its value, as over HTTP/1.1, and the connection goes on.
TEST(SluicedH2, AHeaderListPastALimitIs431NamingTheKey) {
  SluicedProcess sluiced({"h2.max_header_list_bytes=1024", "http.max_headers=16"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  H2TestClient client(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_TRUE(client.ok());
  const auto big = client.request("GET", "/sse/a", {{"x-big", std::string(2000, 'b')}});
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 20; ++i) many.emplace_back("x-h" + std::to_string(i), "v");
  const auto crowded = client.request("GET", "/sse/a", many);
  const auto fine = client.request("GET", "/healthz");
  ASSERT_TRUE(client.pump([&] {
    return client.stream(big).closed && client.stream(crowded).closed && client.stream(fine).closed;
  }));
  EXPECT_EQ(client.stream(big).status, 431);
  EXPECT_EQ(client.stream(big).body,
            "431 Request Header Fields Too Large: header list over h2.max_header_list_bytes (1024 bytes)\n");
  EXPECT_EQ(client.stream(crowded).status, 431);
  EXPECT_EQ(client.stream(crowded).body,
            "431 Request Header Fields Too Large: more header fields than http.max_headers (16 fields)\n");
  EXPECT_EQ(client.stream(fine).status, 200);
  EXPECT_FALSE(client.goaway());
  EXPECT_EQ(sluiced.stop(), 0);
}

// The operator pages answer over HTTP/2 as over HTTP/1.1: a Prometheus or a
// browser that speaks h2 to sluiced (over TLS, by ALPN) is not told 404.
TEST(SluicedH2, OperatorPagesAnswerAsOverHttp11) {
  SluicedProcess sluiced({"dashboard.interval_ms=100"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  H2TestClient client(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_TRUE(client.ok());
  const auto metrics = client.request("GET", "/metrics");
  const auto page = client.request("GET", "/dashboard");
  const auto post_metrics = client.request("POST", "/metrics", {}, "x");
  const auto head_missing = client.request("HEAD", "/nowhere");
  const auto events = client.request("GET", "/dashboard/events");
  ASSERT_TRUE(client.pump([&] {
    for (auto id : {metrics, page, post_metrics, head_missing}) {
      if (!client.stream(id).closed) return false;
    }
    return client.stream(events).body.find("event: snapshot\n") != std::string::npos;
  })) << client.stream(events).body;
  EXPECT_EQ(client.stream(metrics).status, 200);
  EXPECT_TRUE(has(client.stream(metrics).body, "# TYPE sluice_connections gauge")) << client.stream(metrics).body;
  EXPECT_EQ(client.stream(page).status, 200);
  EXPECT_TRUE(has(client.stream(page).body, "<!doctype html>"));
  EXPECT_EQ(client.stream(post_metrics).status, 405);
  // HEAD gets the status and no DATA, which a client would take for an error.
  EXPECT_EQ(client.stream(head_missing).status, 404);
  EXPECT_TRUE(client.stream(head_missing).body.empty());
  const Ran head = run({"curl", "-sS", "-I", "--max-time", "10", "--http2-prior-knowledge", sluiced.base() + "/nowhere"});
  EXPECT_EQ(head.code, 0) << head.output;
  EXPECT_TRUE(has(head.output, "HTTP/2 404")) << head.output;
  EXPECT_EQ(client.stream(events).status, 200);
  EXPECT_TRUE(has(client.stream(events).body, "data: {\"v\":1,")) << client.stream(events).body;

  // The same authorizer decides: with tokens required, a scrape with none is refused.
  SluicedProcess guarded({"auth.mode=jwt", "auth.jwt_secret=operator-pages-secret-0123456789abcdef"});
  ASSERT_NE(guarded.port(), 0) << guarded.output();
  H2TestClient anonymous(static_cast<std::uint16_t>(guarded.port()));
  ASSERT_TRUE(anonymous.ok());
  const auto refused_metrics = anonymous.request("GET", "/metrics");
  const auto refused_events = anonymous.request("GET", "/dashboard/events");
  ASSERT_TRUE(anonymous.pump(
      [&] { return anonymous.stream(refused_metrics).closed && anonymous.stream(refused_events).closed; }));
  EXPECT_EQ(anonymous.stream(refused_metrics).status, 401);
  EXPECT_EQ(anonymous.stream(refused_events).status, 401);
  EXPECT_EQ(guarded.stop(), 0);
  EXPECT_EQ(sluiced.stop(), 0);
}

// The access log has a line per HTTP/2 request as per HTTP/1.1 one, with
// its token redacted and its body never written.
TEST(SluicedH2, AccessLinesCoverStreamsAndPublishesAndNeverABody) {
  SluicedProcess sluiced({"log.access=1", "threads=1", "timeouts.linger_ms=100"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  H2TestClient client(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_TRUE(client.ok());
  const auto stream = client.request("GET", "/sse/logged?token=TOKEN-H2-5e1d");
  ASSERT_TRUE(client.pump([&] { return has(client.stream(stream).body, "retry: "); }));
  const auto post = client.request("POST", "/pub/logged", {{"user-agent", "h2-agent"}}, "BODY-SECRET-H2-77");
  const auto missing = client.request("GET", "/nowhere");
  ASSERT_TRUE(client.pump([&] { return client.stream(post).closed && client.stream(missing).closed; }));
  EXPECT_EQ(client.stream(post).status, 200);
  EXPECT_EQ(sluiced.stop(), 0);
  const std::string log = sluiced.output();
  EXPECT_TRUE(has(log, "transport=sse")) << log;
  EXPECT_TRUE(has(log, "status=404")) << log;
  EXPECT_TRUE(has(log, "h2-agent")) << log;
  EXPECT_FALSE(has(log, "TOKEN-H2-5e1d")) << log;
  EXPECT_FALSE(has(log, "BODY-SECRET-H2-77")) << log;
  // Each line names the connection by the id the admin API knows it by
  // (one connection: one id, not 0), and its own stream.
  std::set<std::string> connections;
  for (const auto id : {stream, post, missing}) {
    const std::size_t at = log.find(" stream=" + std::to_string(id) + " ");
    ASSERT_NE(at, std::string::npos) << id << "\n" << log;
    const std::size_t conn = log.rfind(" conn=", at);
    connections.insert(log.substr(conn, at - conn));
  }
  EXPECT_EQ(connections.size(), 1u) << log;
  EXPECT_FALSE(connections.contains(" conn=0")) << log;
}

// A stream whose client keeps its window shut is a slow consumer under its
// policy (fifo: cut off at its send budget, then reset at the linger
// deadline since its end cannot get through); the stream beside it on the
// same connection receives every event.
TEST(SluicedH2, AShutWindowIsASlowConsumerAndTheOtherStreamGoesOn) {
  SluicedProcess sluiced({"send.budget_bytes=8192", "timeouts.linger_ms=200"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  H2TestClient client(static_cast<std::uint16_t>(sluiced.port()), H2ClientOptions{.initial_window = 1024,
                                                                                   .auto_window = false});
  ASSERT_TRUE(client.ok());
  const auto shut = client.request("GET", "/sse/flow");
  const auto open = client.request("GET", "/sse/flow");
  ASSERT_TRUE(client.pump([&] {
    return has(client.stream(shut).body, "retry: ") && has(client.stream(open).body, "retry: ");
  }));
  client.consume(open, client.stream(open).body.size());
  // Published on the same connection (its POSTs are streams of their own),
  // in batches the open stream's queue holds, each read before the next:
  // the shut stream's queue grows by every batch.
  constexpr int kBatches = 10;
  constexpr int kBatch = 20;
  const std::string payload(100, 'x');
  std::size_t consumed = client.stream(open).body.size();
  for (int b = 0; b < kBatches; ++b) {
    for (int i = 1; i <= kBatch; ++i) {
      client.request("POST", "/pub/flow", {}, payload + "-" + std::to_string(b * kBatch + i));
    }
    const std::string last = "data: " + payload + "-" + std::to_string((b + 1) * kBatch) + "\n\n";
    ASSERT_TRUE(client.pump([&] {
      const std::string& body = client.stream(open).body;
      if (body.size() > consumed) {
        client.consume(open, body.size() - consumed);
        consumed = body.size();
      }
      return has(body, last);
    })) << "batch " << b << ": the open stream has " << client.stream(open).body.size() << " bytes";
  }
  EXPECT_TRUE(client.pump([&] { return client.stream(shut).closed; })) << "the shut stream was never ended";
  EXPECT_TRUE(has(client.stream(shut).body, "retry: ")) << client.stream(shut).body;
  EXPECT_EQ(client.stream(shut).error_code, static_cast<std::uint32_t>(NGHTTP2_CANCEL));
  EXPECT_FALSE(client.goaway());
  EXPECT_EQ(sluiced.stop(), 0);
}

// A subscriber on its own connection, to show that a flood costs it nothing.
struct Bystander {
  explicit Bystander(const SluicedProcess& sluiced)
      : base(sluiced.base()),
        sub({"curl", "-sS", "-N", "--max-time", "30", "--http2-prior-knowledge", sluiced.base() + "/sse/calm"}) {
    EXPECT_TRUE(sub.read_until_contains("retry: ", 10s)) << sub.output();
  }
  bool still_served() {
    const CurlReply pub = curl_http({"--http2-prior-knowledge", "-d", "after the flood", base + "/pub/calm"});
    return pub.has("\"subscribers\":1") && sub.read_until_contains("data: after the flood\n\n", 10s);
  }
  std::string base;
  ChildProcess sub;
};

// CVE-2023-44487: open a stream, reset it at once, again and again.
TEST(SluicedH2, RapidResetGetsGoawayAndOthersKeepReceiving) {
  SluicedProcess sluiced({"h2.max_frames_per_second=100", "timeouts.linger_ms=100"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  Bystander bystander(sluiced);
  H2TestClient flooder(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_TRUE(flooder.ok());
  for (int i = 0; i < 1000 && !flooder.eof(); ++i) {
    const std::int32_t id = flooder.request("GET", "/sse/reset");
    flooder.flush();
    nghttp2_submit_rst_stream(flooder.session(), NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    flooder.flush();
  }
  EXPECT_TRUE(flooder.pump([&] { return flooder.eof(); })) << "the server did not close the connection";
  EXPECT_TRUE(flooder.goaway());
  EXPECT_EQ(flooder.goaway_code(), static_cast<std::uint32_t>(NGHTTP2_ENHANCE_YOUR_CALM));
  EXPECT_TRUE(bystander.still_served()) << bystander.sub.output();
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedH2, SettingsFloodGetsGoawayAndOthersKeepReceiving) {
  SluicedProcess sluiced({"h2.max_frames_per_second=100", "timeouts.linger_ms=100"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  Bystander bystander(sluiced);
  H2TestClient flooder(static_cast<std::uint16_t>(sluiced.port()));
  ASSERT_TRUE(flooder.ok());
  for (int i = 0; i < 1000 && !flooder.eof(); ++i) {
    nghttp2_submit_settings(flooder.session(), NGHTTP2_FLAG_NONE, nullptr, 0);
    if (i % 50 == 0) flooder.flush();
  }
  EXPECT_TRUE(flooder.pump([&] { return flooder.eof(); })) << "the server did not close the connection";
  EXPECT_TRUE(flooder.goaway());
  EXPECT_EQ(flooder.goaway_code(), static_cast<std::uint32_t>(NGHTTP2_ENHANCE_YOUR_CALM));
  EXPECT_TRUE(bystander.still_served()) << bystander.sub.output();
  EXPECT_EQ(sluiced.stop(), 0);
}

}  // namespace
}  // namespace sluice::test
