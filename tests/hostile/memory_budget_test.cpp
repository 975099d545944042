// What a connection can make the server hold outside the pool (a WebSocket
// message or a chunked body being joined, the input buffer under it) is
// charged to the connection (limits.connection_bytes) and to the server
// (limits.server_bytes). Many clients each holding an unfinished message or
// body near the limit: the ones past the server's cap are refused with an
// answer naming the key, the memory the server holds stays under the cap,
// and an SSE and a WebSocket subscriber get every event in order
// throughout. A buffer grown for one large message is given back after it.
//
// The caps are small here so that the scenario runs in a second; the
// 10,000-connection figure at the default caps is in docs/HARDENING.md.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "process_memory.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;

// Polls the server's own account until `done` holds; false after 10 s.
template <typename Done>
bool account_reaches(RunningServer& server, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done(server.server().memory_stats())) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a poll of the condition itself
  }
  return true;
}

// The next frame that is a pong or a close, answering nothing else.
std::optional<ServerFrame> pong_or_close(WsTestClient& client) {
  for (;;) {
    std::optional<ServerFrame> f = client.read_frame();
    if (!f || f->opcode == kPong || f->opcode == kClose) return f;
  }
}

std::string close_reason(const ServerFrame& close) { return close.payload.size() > 2 ? close.payload.substr(2) : ""; }

// One SSE and one WebSocket subscriber of topic "keep", and a publisher
// that sends them numbered events between the attacks.
class Witnesses {
 public:
  explicit Witnesses(std::uint16_t port) : sse_(port, "/sse/keep"), ws_(port), publisher_(port) {}

  testing::AssertionResult open() {
    if (!sse_.opened()) return testing::AssertionFailure() << "SSE stream did not open";
    if (!ws_.open("/ws/keep")) return testing::AssertionFailure() << "WebSocket did not open";
    return testing::AssertionSuccess();
  }
  testing::AssertionResult publish_next() {
    const int status = publish(publisher_, "/pub/keep", "event " + std::to_string(sent_));
    if (status != 200) return testing::AssertionFailure() << "publish " << sent_ << " answered " << status;
    ++sent_;
    return testing::AssertionSuccess();
  }
  // Every event, in order, on both streams.
  testing::AssertionResult got_every_event() {
    if (!sse_.wait_for(static_cast<std::size_t>(sent_))) return testing::AssertionFailure() << "SSE short";
    for (int i = 0; i < sent_; ++i) {
      const std::string expected = "event " + std::to_string(i);
      if (sse_.events()[static_cast<std::size_t>(i)].data != expected) {
        return testing::AssertionFailure() << "SSE event " << i << " is " << sse_.events()[i].data;
      }
      const std::optional<ServerFrame> m = ws_.read_message();
      if (!m || m->payload != expected) return testing::AssertionFailure() << "WebSocket event " << i;
    }
    return testing::AssertionSuccess();
  }

 private:
  SseSubscriber sse_;
  WsTestClient ws_;
  TestClient publisher_;
  int sent_ = 0;
};

server::Config small_caps(std::size_t connection_bytes, std::size_t server_bytes) {
  server::Config config;
  config.connection.memory_bytes = connection_bytes;
  config.server_memory_bytes = static_cast<std::int64_t>(server_bytes);
  return config;
}

// What the memory a test's attackers may make the server hold: the cap,
// plus what each connection keeps at rest uncharged (its input buffer and
// message or body buffer, the connection itself), plus slack for what the
// test itself and the subscribers allocate.
std::size_t allowed_growth(std::size_t server_bytes, std::size_t connections) {
  return server_bytes + connections * 96 * kKiB + 4 * kMiB;
}

// Each attacker sends the first 480 KiB fragment of a message it never
// finishes, then a ping: the pong says the server has read the fragment
// and holds it. The cap holds four such messages; twenty attackers try.
TEST(MemoryBudget, UnfinishedWebSocketMessagesPastTheServerCapAreClosedWith1009) {
  constexpr std::size_t kServerBytes = 2 * kMiB;
  constexpr int kAttackers = 20;
  RunningServer server(small_caps(600 * kKiB, kServerBytes));
  Witnesses witnesses(server.port());
  ASSERT_TRUE(witnesses.open());
  const std::size_t heap_before = live_heap_bytes();
  const std::size_t resident_before = resident_bytes();
  std::vector<std::unique_ptr<WsTestClient>> attackers;
  int held = 0;
  int refused = 0;
  for (int i = 0; i < kAttackers; ++i) {
    auto& attacker = attackers.emplace_back(std::make_unique<WsTestClient>(server.port()));
    ASSERT_TRUE(attacker->open("/pub/attack")) << i;
    attacker->send({.opcode = kText, .payload = std::string(480 * kKiB, 'a'), .fin = false});
    attacker->send({.opcode = kPing, .payload = "read?"});
    const std::optional<ServerFrame> answer = pong_or_close(*attacker);
    ASSERT_TRUE(answer) << i;
    if (answer->opcode == kPong) {
      ++held;
    } else {
      ++refused;
      EXPECT_EQ(answer->close_code(), 1009) << i;
      EXPECT_NE(close_reason(*answer).find("limits.server_bytes"), std::string::npos) << close_reason(*answer);
    }
    ASSERT_TRUE(witnesses.publish_next()) << i;
    EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  }
  EXPECT_EQ(held, 4);
  EXPECT_EQ(refused, kAttackers - 4);
  EXPECT_EQ(server.server().memory_stats().refused_by_server, static_cast<std::uint64_t>(refused));
  const std::size_t bound = allowed_growth(kServerBytes, kAttackers);
  EXPECT_LT(grown(heap_before, live_heap_bytes()), bound);
  if (kResidentSetMeaningful) {
    EXPECT_LT(grown(resident_before, resident_bytes()), bound);
  }
  EXPECT_TRUE(witnesses.got_every_event());
}

TEST(MemoryBudget, AMessageOverTheConnectionsShareIsClosedWith1009) {
  RunningServer server(small_caps(600 * kKiB, 4 * kMiB));
  WsTestClient attacker(server.port());
  ASSERT_TRUE(attacker.open("/pub/attack"));
  attacker.send({.opcode = kText, .payload = std::string(700 * kKiB, 'a'), .fin = false});
  const std::optional<ServerFrame> answer = pong_or_close(attacker);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->close_code(), 1009);
  EXPECT_NE(close_reason(*answer).find("limits.connection_bytes"), std::string::npos) << close_reason(*answer);
  EXPECT_EQ(server.server().memory_stats().refused_by_connection, 1u);
}

std::string chunked_head() {
  return "POST /pub/attack HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
}

std::string chunk(std::size_t size) {
  char line[32];
  std::snprintf(line, sizeof line, "%zx\r\n", size);
  return line + std::string(size, 'b') + "\r\n";
}

// Each attacker sends one whole 300 KiB chunk of a body it never ends. The
// server holds it twice while it waits for the rest (the raw bytes in the
// input buffer, the joined body), about a megabyte a client: the cap holds
// three; twelve try.
TEST(MemoryBudget, UnfinishedChunkedBodiesPastTheServerCapGet503) {
  constexpr std::size_t kServerBytes = 3 * kMiB;
  constexpr int kAttackers = 12;
  // Both buffers have all of the chunk once this much more is charged.
  constexpr std::size_t kHeldOnce = 2 * 300 * kKiB - 48 * kKiB;
  RunningServer server(small_caps(1536 * kKiB, kServerBytes));
  Witnesses witnesses(server.port());
  ASSERT_TRUE(witnesses.open());
  const std::size_t heap_before = live_heap_bytes();
  const std::size_t resident_before = resident_bytes();
  std::vector<std::unique_ptr<TestClient>> attackers;
  const auto answered = [](TestClient& attacker) {
    return attacker.read_until([](const std::string& b) { return !b.empty(); }, std::chrono::milliseconds(1));
  };
  for (int i = 0; i < kAttackers; ++i) {
    auto& attacker = attackers.emplace_back(std::make_unique<TestClient>(server.port()));
    const server::MemoryStats before = server.server().memory_stats();
    attacker->send(chunked_head() + chunk(300 * kKiB));
    // The server has taken the chunk in, or refused a body (this one's, or,
    // when this one arrived while the one before was still growing, that
    // one's): which is settled below, once every refusal has its answer.
    ASSERT_TRUE(account_reaches(server, [&](const server::MemoryStats& m) {
      return m.charged >= before.charged + kHeldOnce || m.refused_by_server > before.refused_by_server ||
             answered(*attacker);
    })) << i;
    ASSERT_TRUE(witnesses.publish_next()) << i;
    EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  }
  // A held body is never answered (it never ends); a refused one is, with
  // 503. Wait for the refusals the cap must make, then count.
  int refused = 0;
  ASSERT_TRUE(account_reaches(server, [&](const server::MemoryStats&) {
    refused = 0;
    for (auto& attacker : attackers) refused += answered(*attacker) ? 1 : 0;
    return refused >= kAttackers - 3;
  })) << refused;
  for (int i = 0; i < kAttackers; ++i) {
    if (attackers[i]->buffer().empty()) continue;
    const HttpReply reply = read_reply(*attackers[i]);
    EXPECT_EQ(reply.status, 503) << i;
    EXPECT_NE(reply.body.find("limits.server_bytes"), std::string::npos) << reply.body;
  }
  EXPECT_EQ(refused, kAttackers - 3);
  EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  const std::size_t bound = allowed_growth(kServerBytes, kAttackers);
  EXPECT_LT(grown(heap_before, live_heap_bytes()), bound);
  if (kResidentSetMeaningful) {
    EXPECT_LT(grown(resident_before, resident_bytes()), bound);
  }
  EXPECT_TRUE(witnesses.got_every_event());
}

TEST(MemoryBudget, ABodyOverTheConnectionsShareGets413) {
  RunningServer server(small_caps(256 * kKiB, 4 * kMiB));
  TestClient attacker(server.port());
  attacker.send("POST /pub/attack HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 600000\r\n\r\n" + std::string(600000, 'c'));
  const HttpReply reply = read_reply(attacker);
  EXPECT_EQ(reply.status, 413);
  EXPECT_NE(reply.body.find("limits.connection_bytes"), std::string::npos) << reply.body;
}

// The buffers a large message grew go back once it has been published:
// the account returns to nothing while the connection stays open.
TEST(MemoryBudget, AWebSocketMessageBufferIsGivenBackAfterTheMessage) {
  RunningServer server(small_caps(2 * kMiB, 8 * kMiB));
  WsTestClient subscriber(server.port());
  ASSERT_TRUE(subscriber.open("/ws/big"));
  WsTestClient publisher(server.port());
  ASSERT_TRUE(publisher.open("/pub/big"));
  publisher.send({.opcode = kText, .payload = std::string(300 * kKiB, 'm'), .fin = false});
  publisher.send({.opcode = kPing, .payload = "read?"});
  const std::optional<ServerFrame> pong = pong_or_close(publisher);
  ASSERT_TRUE(pong && pong->opcode == kPong);
  EXPECT_GE(server.server().memory_stats().charged, 280 * kKiB);
  publisher.send({.opcode = kContinuation, .payload = "end"});
  const std::optional<ServerFrame> m = subscriber.read_message();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->payload.size(), 300 * kKiB + 3);
  EXPECT_TRUE(account_reaches(server, [](const server::MemoryStats& s) { return s.charged == 0; }));
  // The connection goes on, with small messages costing nothing.
  publisher.send({.opcode = kText, .payload = "small"});
  const std::optional<ServerFrame> small = subscriber.read_message();
  ASSERT_TRUE(small);
  EXPECT_EQ(small->payload, "small");
  EXPECT_EQ(server.server().memory_stats().charged, 0u);
}

TEST(MemoryBudget, AChunkedBodyAndItsInputAreGivenBackAfterTheRequest) {
  RunningServer server(small_caps(2 * kMiB, 8 * kMiB));
  SseSubscriber sse(server.port(), "/sse/attack");
  ASSERT_TRUE(sse.opened());
  TestClient publisher(server.port());
  publisher.send(chunked_head() + chunk(300 * kKiB));
  ASSERT_TRUE(account_reaches(server, [](const server::MemoryStats& m) { return m.charged >= 500 * kKiB; }));
  publisher.send("0\r\n\r\n");
  EXPECT_EQ(read_reply(publisher).status, 200);
  ASSERT_TRUE(sse.wait_for(1));
  EXPECT_EQ(sse.events()[0].data.size(), 300 * kKiB);
  EXPECT_TRUE(account_reaches(server, [](const server::MemoryStats& m) { return m.charged == 0; }));
  EXPECT_EQ(publish(publisher, "/pub/attack", "small"), 200);
  EXPECT_EQ(server.server().memory_stats().charged, 0u);
}

}  // namespace
}  // namespace sluice::test::ws
