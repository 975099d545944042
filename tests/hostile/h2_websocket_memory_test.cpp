// What each WebSocket stream over HTTP/2 makes the server hold, charged to
// its connection's memory account, since one connection opens many.
//
// With an authorizer installed, each stream keeps a copy of the request
// that opened it for its later checks, with a header list of up to
// h2.max_header_list_bytes: the charge per WebSocket stream is its
// request's size above an SSE stream's with the same headers, a stream
// whose copy the account cannot hold is refused with
// RST_STREAM(REFUSED_STREAM), and a stream that ends gives its copy back.
//
// Each stream's message buffer is charged for all it keeps at rest (up to
// 16 KiB after a message that large), where a connection's one WebSocket
// over HTTP/1.1 keeps that much as its fixed cost.
//
// nghttp2's client API plays the client.
#include <gtest/gtest.h>

#include <nghttp2/nghttp2.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "eventually.hpp"
#include "h2_test_client.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::H2TestClient;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kConnectionBytes = 128 * kKiB;
const std::string kPadding(3000, 'p');  // under h2.max_header_list_bytes (4 KiB)

server::Config small_account() {
  server::Config config;
  config.threads = 1;
  config.connection.memory_bytes = kConnectionBytes;
  config.ws.max_message = 16 * kKiB;
  config.http.max_body = 16 * kKiB;
  config.h2.max_header_list_bytes = 4 * kKiB;
  return config;
}

class H2WebSocketMemory : public testing::Test {
 protected:
  void SetUp() override {
    server = std::make_unique<RunningServer>(small_account(), [](server::Server& s) {
      s.authorize([](const server::AuthRequest&) { return server::AuthDecision::allow(); });
    });
    client = std::make_unique<H2TestClient>(server->port());
    ASSERT_TRUE(client->ok());
    ASSERT_TRUE(client->pump([&] {
      return nghttp2_session_get_remote_settings(client->session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
    }));
  }
  std::size_t charged() { return server->server().memory_stats().charged; }
  // Opens a stream and waits for its answer; 0 when it was refused.
  std::int32_t open(const std::string& method, const std::string& path, const std::string& protocol) {
    const std::vector<std::pair<std::string, std::string>> fields{{"sec-websocket-version", "13"},
                                                                   {"x-padding", kPadding}};
    const std::int32_t id = client->request(method, path, fields, "", method == "CONNECT", protocol);
    if (id <= 0 || !client->pump([&] { return client->stream(id).status != 0 || client->stream(id).closed; })) {
      ADD_FAILURE() << "no answer to " << method << " " << path;
      return 0;
    }
    if (client->stream(id).closed) {
      last_refused = id;
      return 0;
    }
    return id;
  }

  std::unique_ptr<RunningServer> server;
  std::unique_ptr<H2TestClient> client;
  std::int32_t last_refused = 0;
};

TEST_F(H2WebSocketMemory, EachWebSocketStreamsCopyIsChargedRefusedPastTheShareAndGivenBack) {
  // Warm the session (its tables, the padding in them) before measuring.
  ASSERT_NE(open("GET", "/sse/kept-warm", ""), 0);
  constexpr std::size_t kEach = 3;
  const std::size_t before_sse = charged();
  for (std::size_t i = 0; i < kEach; ++i) ASSERT_NE(open("GET", "/sse/kept" + std::to_string(i), ""), 0);
  const std::size_t sse_each = (charged() - before_sse) / kEach;
  const std::size_t before_ws = charged();
  std::vector<std::int32_t> websockets;
  for (std::size_t i = 0; i < kEach; ++i) {
    websockets.push_back(open("CONNECT", "/ws", "websocket"));
    ASSERT_NE(websockets.back(), 0) << "WebSocket stream " << i << " refused";
  }
  const std::size_t ws_each = (charged() - before_ws) / kEach;
  EXPECT_GE(ws_each, sse_each + kPadding.size())
      << "a WebSocket stream's kept request is not charged: " << ws_each << " per WebSocket stream, " << sse_each
      << " per SSE stream with the same headers";

  // More until one is refused; the charge never passes the share.
  while (last_refused == 0 && websockets.size() < 100) {
    const std::int32_t id = open("CONNECT", "/ws", "websocket");
    EXPECT_LE(charged(), kConnectionBytes);
    if (id != 0) websockets.push_back(id);
  }
  ASSERT_NE(last_refused, 0) << "no WebSocket stream was refused; charged " << charged();
  EXPECT_EQ(client->stream(last_refused).error_code, static_cast<std::uint32_t>(NGHTTP2_REFUSED_STREAM));
  EXPECT_GE(server->server().memory_stats().refused_by_connection, 1u);

  // A stream that ends gives its copy back (its own header storage is
  // trimmed too, so at least the copy's text comes back).
  const std::size_t open_charge = charged();
  ASSERT_EQ(nghttp2_submit_rst_stream(client->session(), NGHTTP2_FLAG_NONE, websockets.front(), NGHTTP2_CANCEL), 0);
  ASSERT_TRUE(client->flush());
  EXPECT_TRUE(eventually([&] { return charged() + kPadding.size() <= open_charge; }))
      << "charged with " << websockets.size() << " streams: " << open_charge << ", one fewer: " << charged();

  client.reset();
  EXPECT_TRUE(eventually([&] { return charged() == 0; })) << "charged after close: " << charged();
}

TEST_F(H2WebSocketMemory, EachStreamsMessageBufferIsChargedAtRestAndGivenBack) {
  SseSubscriber subscriber(server->port(), "/sse/h2-resting");
  ASSERT_TRUE(subscriber.opened());
  const std::int32_t publisher = open("CONNECT", "/pub/h2-resting", "websocket");
  ASSERT_NE(publisher, 0);
  const std::size_t before = charged();
  const std::string message(10000, 'm');
  client->send(publisher, ws::wire({.opcode = ws::kText, .payload = message}), false);
  ASSERT_TRUE(client->flush());
  ASSERT_TRUE(subscriber.wait_for(1));
  EXPECT_EQ(subscriber.events()[0].data, message);
  // The buffer the message grew stays for the next one, charged.
  const std::size_t resting = charged();
  EXPECT_GE(resting, before + message.size()) << "a stream's resting message buffer is not charged";
  ASSERT_EQ(nghttp2_submit_rst_stream(client->session(), NGHTTP2_FLAG_NONE, publisher, NGHTTP2_CANCEL), 0);
  ASSERT_TRUE(client->flush());
  EXPECT_TRUE(eventually([&] { return charged() + message.size() <= resting; }))
      << "charged with the stream: " << resting << ", after it: " << charged();
}

// A stream refused for want of room for its request's copy is refused
// before anything else is made for it: no exchange, no Peer, and no
// ConnectionRef id. The connection's share is filled until it has room to
// admit a stream (h2.max_header_list_bytes) but not to keep its copy as
// well; the application then sees the streams that opened before and
// after the refused one with ids one after the other.
TEST(H2WebSocketRefusal, AStreamRefusedForItsRequestsCopyTakesNoConnectionId) {
  std::mutex mutex;
  std::vector<std::uint64_t> opened_ids;
  RunningServer server(small_account(), [&](server::Server& s) {
    s.authorize([](const server::AuthRequest&) { return server::AuthDecision::allow(); });
    s.on_open([&](server::ConnectionRef ref, std::string_view) {
      const std::lock_guard lock(mutex);
      opened_ids.push_back(ref.id());
    });
  });
  const auto opened = [&] {
    const std::lock_guard lock(mutex);
    return opened_ids;
  };
  const auto room = [&] { return kConnectionBytes - server.server().memory_stats().charged; };
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(client.pump([&] {
    return nghttp2_session_get_remote_settings(client.session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
  }));
  // Opens a stream; its id, or 0 when it was refused.
  const auto open = [&](const std::string& method, const std::string& path, const std::string& padding) {
    const std::vector<std::pair<std::string, std::string>> fields{{"sec-websocket-version", "13"},
                                                                   {"x-padding", padding}};
    const std::int32_t id = client.request(method, path, fields, "", method == "CONNECT",
                                           method == "CONNECT" ? "websocket" : "");
    if (id <= 0 || !client.pump([&] { return client.stream(id).status != 0 || client.stream(id).closed; })) {
      ADD_FAILURE() << "no answer to " << method << " " << path;
      return std::int32_t{0};
    }
    return client.stream(id).closed ? 0 : id;
  };
  constexpr std::size_t kAdmission = 4 * kKiB;  // h2.max_header_list_bytes
  // WebSocket streams (about 10 KiB each) while 16 KiB are left, then SSE
  // streams with no padding (under 2 KiB each) while 6 KiB are: what is
  // left admits a stream, but not its headers and their copy (3 KiB each).
  std::vector<std::int32_t> websockets;
  while (room() >= 16 * kKiB && websockets.size() < 20) {
    websockets.push_back(open("CONNECT", "/ws", kPadding));
    ASSERT_NE(websockets.back(), 0) << "refused with " << room() << " bytes of room";
  }
  for (int i = 0; room() >= kAdmission + 2 * kKiB && i < 50; ++i) {
    ASSERT_NE(open("GET", "/sse/fill" + std::to_string(i), ""), 0) << "refused with " << room() << " bytes of room";
  }
  ASSERT_GE(room(), kAdmission);
  ASSERT_LT(room(), kAdmission + 2 * kKiB);
  const std::int32_t refused = client.request("CONNECT", "/ws",
                                              {{"sec-websocket-version", "13"}, {"x-padding", kPadding}}, "",
                                              true, "websocket");
  ASSERT_GT(refused, 0);
  ASSERT_TRUE(client.pump([&] { return client.stream(refused).status != 0 || client.stream(refused).closed; }));
  ASSERT_TRUE(client.stream(refused).closed) << "a stream opened with " << room() << " bytes of room";
  EXPECT_EQ(client.stream(refused).error_code, static_cast<std::uint32_t>(NGHTTP2_REFUSED_STREAM));
  // Room again: two streams end, and the next opens.
  ASSERT_GE(websockets.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(nghttp2_submit_rst_stream(client.session(), NGHTTP2_FLAG_NONE, websockets[i], NGHTTP2_CANCEL), 0);
  }
  ASSERT_TRUE(client.flush());
  ASSERT_TRUE(eventually([&] { return room() >= 16 * kKiB; })) << room() << " bytes of room";
  ASSERT_NE(open("CONNECT", "/ws", kPadding), 0);
  ASSERT_TRUE(eventually([&] { return opened().size() == websockets.size() + 1; }));
  const std::vector<std::uint64_t> ids = opened();
  for (std::size_t i = 1; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], ids[i - 1] + 1) << "a refused stream took ids between the streams that opened " << i - 1
                                      << " and " << i;
  }
}

// A message a stream's publish must hold (the pool has no room for it) is
// copied, and over HTTP/2 the copy is charged from its first byte, as the
// stream's message buffer is: 10,000 bytes held charge the account twice
// (the message buffer at rest and the copy), where a copy that kept its
// first 16 KiB uncharged added nothing.
TEST(H2WebSocketHeldMemory, AHeldPublishsCopyIsChargedWhole) {
  server::Config config;
  config.threads = 1;
  config.pool = {.block_count = 64, .block_size = 4096, .reserve = 4};
  config.connection.send.max_bytes = 1 << 20;  // the pool, not the budget, stops data here
  config.tcp_send_buffer = 4096;
  config.connection.memory_bytes = kConnectionBytes;
  config.ws.max_message = 16 * kKiB;
  RunningServer server(config);
  SseSubscriber stalled(server.port(), "/sse/h2-held", 4096);
  ASSERT_TRUE(stalled.opened());
  TestClient poster(server.port());
  int accepted = 0;
  for (int status = 200; status == 200 && accepted < 1000;) {
    status = publish(poster, "/pub/h2-held", "event " + std::to_string(accepted) + std::string(1000, 'f'));
    accepted += status == 200;
  }
  ASSERT_GT(accepted, 0);

  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(client.pump([&] {
    return nghttp2_session_get_remote_settings(client.session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
  }));
  const std::int32_t id =
      client.request("CONNECT", "/pub/h2-held", {{"sec-websocket-version", "13"}}, "", true, "websocket");
  ASSERT_GT(id, 0);
  ASSERT_TRUE(client.pump([&] { return client.stream(id).status != 0 || client.stream(id).closed; }));
  ASSERT_EQ(client.stream(id).status, 200);
  const std::size_t before = server.server().memory_stats().charged;
  const std::string message(10000, 'h');
  client.send(id, ws::wire({.opcode = ws::kText, .payload = message}), false);
  ASSERT_TRUE(client.flush());
  ASSERT_TRUE(eventually([&] { return server.server().stats().publishes_held > 0; }));
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged >= before + 2 * message.size(); }))
      << "charged while held: " << server.server().memory_stats().charged - before << " past the open stream's";
  // Published once the stalled reader makes room.
  ASSERT_TRUE(stalled.wait_for(static_cast<std::size_t>(accepted) + 1));
  EXPECT_EQ(stalled.events()[static_cast<std::size_t>(accepted)].data, message);
}

}  // namespace
}  // namespace sluice::test
