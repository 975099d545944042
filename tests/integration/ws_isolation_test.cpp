// One connection's misbehaviour stays its own: while a WebSocket and an SSE
// subscriber follow a topic, other clients of the same endpoint send
// garbage, impossible lengths, unmasked frames, invalid UTF-8, a flood of
// pings they never read the answers to, and vanish with resets. Each of
// them gets the close it earned; the good subscribers get every event,
// intact and in order, and the server goes on serving.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "ws_echo_stream.hpp"
#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

constexpr std::string_view kStream = "/ws/stream";
constexpr int kEvents = 300;

std::string event_text(int i) { return "event " + std::to_string(i) + " " + std::string(80, 'e'); }

// An attacker that is failed with `code` once it sends `bytes`.
void expect_failed(std::uint16_t port, const std::string& bytes, int code) {
  WsTestClient attacker(port);
  ASSERT_TRUE(attacker.open(kStream));
  attacker.send_raw(bytes);
  EXPECT_EQ(attacker.read_close(), code);
  EXPECT_TRUE(attacker.wait_closed());
}

std::string garbage(std::size_t n) {
  std::string out(n, '\0');
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>(0xFF - (i * 31) % 97);
  return out;
}

void garbage_instead_of_a_request(std::uint16_t port) {
  TestClient attacker(port);
  attacker.send(garbage(4096) + "\r\n\r\n");
  EXPECT_EQ(read_reply(attacker).status, 400);
  EXPECT_TRUE(attacker.read_until_closed());
}

void reset_mid_frame(std::uint16_t port) {
  WsTestClient attacker(port);
  ASSERT_TRUE(attacker.open(kStream));
  attacker.send_raw(wire({.opcode = kText, .payload = "half a fram", .length = 4000}));
  attacker.reset();
}

void reset_mid_handshake(std::uint16_t port) {
  WsTestClient attacker(port);
  attacker.send_raw("GET /ws/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: webs");
  attacker.reset();
}

// Keeps its connection, and the 10,000 pongs it is owed, unread until the end.
void ping_flood(std::uint16_t port, std::vector<std::unique_ptr<WsTestClient>>& kept) {
  kept.push_back(std::make_unique<WsTestClient>(port));
  ASSERT_TRUE(kept.back()->open(kStream));
  std::string pings;
  for (int i = 0; i < 10000; ++i) pings += wire({.opcode = kPing, .payload = "flood"});
  kept.back()->send_raw(pings);
}

TEST(WsIsolation, GoodSubscribersGetEveryEventWhileOthersMisbehave) {
  RunningServer server({}, add_echo_endpoint);
  const std::uint16_t port = server.port();
  WsTestClient good_ws(port);
  ASSERT_TRUE(good_ws.open(kStream));
  SseSubscriber good_sse(port, "/sse/stream");
  ASSERT_TRUE(good_sse.opened());

  std::vector<std::unique_ptr<WsTestClient>> flooders;
  const std::vector<std::function<void()>> attacks = {
      [&] { garbage_instead_of_a_request(port); },
      [&] { expect_failed(port, garbage(4096), 1002); },
      [&] { expect_failed(port, wire({.opcode = kBinary, .length = std::uint64_t{1} << 63}), 1002); },
      [&] { expect_failed(port, wire({.opcode = kText, .payload = "bare", .masked = false}), 1002); },
      [&] { expect_failed(port, wire({.opcode = kText, .payload = "bad \xED\xA0\x80 text"}), 1007); },
      [&] { ping_flood(port, flooders); },
      [&] { reset_mid_frame(port); },
      [&] { reset_mid_handshake(port); },
  };
  TestClient publisher(port);
  for (int i = 0; i < kEvents; ++i) {
    ASSERT_EQ(publish(publisher, "/pub/stream", event_text(i)), 200);
    if (i % 30 == 0) attacks[static_cast<std::size_t>(i / 30) % attacks.size()]();
  }

  for (int i = 0; i < kEvents; ++i) {
    const std::optional<ServerFrame> m = good_ws.read_message();
    ASSERT_TRUE(m) << "event " << i;
    EXPECT_EQ(m->opcode, kText);
    ASSERT_TRUE(m->payload == event_text(i)) << "event " << i << " is: " << m->payload.substr(0, 160);
  }
  ASSERT_TRUE(good_sse.wait_for(kEvents));
  for (int i = 0; i < kEvents; ++i) {
    EXPECT_EQ(good_sse.events()[static_cast<std::size_t>(i)].data, event_text(i));
    EXPECT_EQ(seq_of(good_sse.events()[static_cast<std::size_t>(i)].id), static_cast<std::uint64_t>(i + 1));
  }

  // Still serving: plain HTTP, a new subscriber, and the echo endpoint.
  EXPECT_EQ(http_request(port, "GET", "/healthz").status, 200);
  WsTestClient late(port);
  ASSERT_TRUE(late.open(kStream));
  EXPECT_EQ(publish(publisher, "/pub/stream", "after"), 200);
  const std::optional<ServerFrame> after = late.read_message();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->payload, "after");
  EXPECT_TRUE(run_exchange(port, script({{.opcode = kText, .payload = "echo"}}, {message(kText, "echo")})));
}

}  // namespace
}  // namespace sluice::test::ws
