// WebSocket over HTTP/2 (extended CONNECT) with real peers against
// sluiced: Node's built-in http2 client, masking its own frames, over h2c
// and over TLS (ALPN h2) receives 100 events in order on /ws/{topic},
// pings, publishes a message back and closes; Node speaks the /ws JSON
// protocol on one stream (two topics, a publish to each, both received);
// requests that are not a WebSocket get their status; and nghttp2's client keeping a
// WebSocket stream's window shut makes that stream a slow consumer while
// an SSE stream beside it on the same connection receives every event.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "child_process.hpp"
#include "h2_test_client.hpp"
#include "sluiced_process.hpp"
#include "test_certs.hpp"

namespace sluice::test {
namespace {

using transport::test::H2ClientOptions;
using transport::test::H2TestClient;

const std::filesystem::path kPeer = SLUICE_SOURCE_DIR "/tests/peers/h2_websocket.mjs";
const std::filesystem::path kJsonPeer = SLUICE_SOURCE_DIR "/tests/peers/h2_ws_json.mjs";

struct Ran {
  int code;
  std::string output;
};
Ran run(const std::vector<std::string>& argv) {
  ChildProcess child(argv);
  child.read_to_end(40s);
  const int code = child.wait(5s);
  return {code, child.output()};
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST(SluicedH2WebSocket, NodeReceivesAHundredEventsInOrderOverExtendedConnect) {
  SluicedProcess sluiced({});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Ran peer = run({"node", kPeer.string(), sluiced.base(), "h2ws", "100"});
  EXPECT_EQ(peer.code, 0) << peer.output;
  EXPECT_TRUE(has(peer.output, "100 events in order, pong, own message published back, close 1000, protocol h2c"))
      << peer.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

class SluicedH2WebSocketTls : public ServerCertTest {
 protected:
  SluicedH2WebSocketTls() : ServerCertTest("h2ws") {}
};

TEST_F(SluicedH2WebSocketTls, NodeReceivesEventsOverTlsWithAlpnH2) {
  SluicedProcess sluiced({"tls.cert_file=" + cert_.cert_file, "tls.key_file=" + cert_.key_file});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Ran peer = run({"node", kPeer.string(), "https://127.0.0.1:" + std::to_string(sluiced.port()), "h2wss",
                        "100", certs_.ca_file()});
  EXPECT_EQ(peer.code, 0) << peer.output;
  EXPECT_TRUE(has(peer.output, "100 events in order, pong, own message published back, close 1000, protocol h2"))
      << peer.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

// CONNECT without :protocol (a tunnel sluiced does not make): 405; a path
// with no WebSocket: 404; another protocol: 400; no version 13: 426; the
// version given twice: 400.
TEST(SluicedH2WebSocket, RequestsThatAreNotAWebSocketOnATopicGetTheirStatus) {
  SluicedProcess sluiced({});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Ran peer = run({"node", kPeer.string(), sluiced.base(), "--refusals"});
  EXPECT_EQ(peer.code, 0) << peer.output;
  EXPECT_TRUE(has(peer.output, "refusals 405 404 400 426 400")) << peer.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

// The /ws JSON protocol on one HTTP/2 stream, as a real peer speaks it.
TEST(SluicedH2WebSocket, NodeSpeaksTheJsonProtocolOnOneStream) {
  SluicedProcess sluiced({});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const Ran peer = run({"node", kJsonPeer.string(), sluiced.base(), "alpha", "beta"});
  EXPECT_EQ(peer.code, 0) << peer.output;
  EXPECT_TRUE(has(peer.output, "subscribed to alpha and beta, published to both on one stream, received both"))
      << peer.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

// The client never gives the WebSocket stream window: its events wait in
// the stream's queue, the fifo policy cuts it off at the send budget, and
// its close frame cannot get through either, so it is reset at the linger
// deadline. The SSE stream on the same connection gets every event.
TEST(SluicedH2WebSocket, AShutWindowIsASlowConsumerAndTheStreamBesideItGoesOn) {
  SluicedProcess sluiced({"send.budget_bytes=8192", "timeouts.linger_ms=200"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  H2TestClient client(static_cast<std::uint16_t>(sluiced.port()),
                      H2ClientOptions{.initial_window = 1024, .auto_window = false});
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(client.pump([&] {
    return nghttp2_session_get_remote_settings(client.session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
  }));
  const auto ws = client.request("CONNECT", "/ws/flow", {{"sec-websocket-version", "13"}}, "", true, "websocket");
  const auto sse = client.request("GET", "/sse/flow");
  ASSERT_TRUE(client.pump([&] { return client.stream(ws).status == 200 && has(client.stream(sse).body, "retry: "); }));
  std::size_t consumed = client.stream(sse).body.size();
  client.consume(sse, consumed);
  constexpr int kBatches = 10;
  constexpr int kBatch = 20;
  const std::string payload(100, 'x');
  for (int b = 0; b < kBatches; ++b) {
    for (int i = 1; i <= kBatch; ++i) {
      client.request("POST", "/pub/flow", {}, payload + "-" + std::to_string(b * kBatch + i));
    }
    const std::string last = "data: " + payload + "-" + std::to_string((b + 1) * kBatch) + "\n\n";
    ASSERT_TRUE(client.pump([&] {
      const std::string& body = client.stream(sse).body;
      if (body.size() > consumed) {
        client.consume(sse, body.size() - consumed);
        consumed = body.size();
      }
      return has(body, last);
    })) << "batch " << b;
  }
  EXPECT_TRUE(client.pump([&] { return client.stream(ws).closed; })) << "the shut stream was never ended";
  EXPECT_EQ(client.stream(ws).error_code, static_cast<std::uint32_t>(NGHTTP2_CANCEL));
  EXPECT_LE(client.stream(ws).body.size(), 1024u);  // never past the window it was given
  EXPECT_FALSE(client.goaway());
  EXPECT_EQ(sluiced.stop(), 0);
}

}  // namespace
}  // namespace sluice::test
