// A client that offers permessage-deflate makes the server hold zlib's
// inflater for the life of its connection: its state (about 7 KiB) once
// negotiated, its 32 KiB window once the client sends a compressed message.
// Both are charged to the connection's memory account like its buffers, so
// many such clients together stay under limits.server_bytes: one whose
// zlib memory the server cannot hold is closed with 1013 naming the key,
// and the connections already holding theirs go on.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "eventually.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kWindow = 32 * kKiB;

// Room for one connection's zlib state and window, and another's state,
// but not its window.
server::Config small_cap() {
  server::Config config;
  config.threads = 1;
  config.connection.memory_bytes = 64 * kKiB;
  config.server_memory_bytes = 64 * kKiB;
  config.ws.max_message = 16 * kKiB;
  config.http.max_body = 16 * kKiB;
  return config;
}

bool open_deflated(WsTestClient& client, const std::string& path) {
  const UpgradeReply reply = client.upgrade({.path = path, .extensions = "permessage-deflate"});
  return reply.status == 101 && reply.header("sec-websocket-extensions").has_value();
}

void send_compressed(WsTestClient& client, ClientDeflater& deflater, std::string_view text) {
  client.send({.opcode = kText, .payload = deflater.compress(text), .rsv = kRsv1});
}

TEST(DeflateMemory, ZlibStateIsChargedAndAConnectionTheServerCannotHoldIsClosedWith1013) {
  RunningServer server(small_cap());
  auto charged = [&] { return server.server().memory_stats().charged; };
  SseSubscriber subscriber(server.port(), "/sse/deflated");
  ASSERT_TRUE(subscriber.opened());

  WsTestClient first(server.port());
  ASSERT_TRUE(open_deflated(first, "/pub/deflated"));
  ASSERT_TRUE(eventually([&] { return charged() > 1000; })) << "zlib's state is not charged";
  const std::size_t state = charged();
  ClientDeflater first_deflater;
  send_compressed(first, first_deflater, "one");
  ASSERT_TRUE(subscriber.wait_for(1));
  EXPECT_EQ(subscriber.events()[0].data, "one");
  EXPECT_GE(charged(), state + kWindow) << "zlib's window is not charged";

  // A second connection's state fits beside the first's; its window does
  // not: closed naming the server's key, before anything is published.
  WsTestClient second(server.port());
  ASSERT_TRUE(open_deflated(second, "/pub/deflated"));
  ClientDeflater second_deflater;
  send_compressed(second, second_deflater, "two");
  const std::optional<ServerFrame> close = second.read_frame();
  ASSERT_TRUE(close) << "the second window was held uncharged";
  EXPECT_EQ(close->opcode, kClose);
  EXPECT_EQ(close->close_code(), 1013);
  EXPECT_EQ(close->payload.substr(2), "server memory for compression is full (limits.server_bytes)");
  EXPECT_GE(server.server().memory_stats().refused_by_server, 1u);
  EXPECT_LE(charged(), 64 * kKiB);

  // The first goes on, its window reused.
  send_compressed(first, first_deflater, "three");
  ASSERT_TRUE(subscriber.wait_for(2));
  EXPECT_EQ(subscriber.events()[1].data, "three");

  EXPECT_TRUE(second.wait_closed());
  first.reset();
  EXPECT_TRUE(eventually([&] { return charged() == 0; })) << "charged after close: " << charged();
}

}  // namespace
}  // namespace sluice::test::ws
