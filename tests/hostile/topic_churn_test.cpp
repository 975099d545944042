// A client that names a new topic in every request, by publishing or by
// subscribing and leaving, would fill topics.max and lock every other
// client out of new topics until a restart. Idle topics are freed when a
// new one needs their place; a connection may make at most
// topics.max_created_per_connection topics; a client resuming from an
// event of a freed topic is told so (a reset notice). Subscribers of other
// topics get every event in order throughout.
#include <gtest/gtest.h>

#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "proto/ws_json.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// The sanitizer runtime's own count of live heap bytes (its quarantine
// keeps freed memory resident on purpose, so the resident set says
// nothing there).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#define SLUICE_SANITIZER_HEAP 1
#endif

namespace sluice::test::ws {
namespace {

namespace wsjson = proto::wsjson;

std::string text_frame(std::string_view payload) { return wire({.opcode = kText, .payload = std::string(payload)}); }

testing::AssertionResult read_ack(WsTestClient& client, wsjson::ServerMessage& ack, std::string& text) {
  const std::optional<ServerFrame> m = client.read_message();
  if (!m) return testing::AssertionFailure() << "no message";
  text.assign(m->payload);
  static std::string decoded;
  decoded.resize(text.size());
  const wsjson::ReadResult r = wsjson::read_server_message(text, wsjson::Style::json_protocol, {}, decoded, ack);
  if (!r.ok()) return testing::AssertionFailure() << r.reason << " in " << text;
  if (ack.op != wsjson::ServerOp::ack) return testing::AssertionFailure() << "not an ack: " << text;
  if (!ack.ok) return testing::AssertionFailure() << "refused: " << text;
  return testing::AssertionSuccess();
}

// Freed as soon as nobody holds them, so the test needs no wait.
server::Config churn_config() {
  server::Config config;
  config.hub.history_ttl_ms = 0;
  config.hub.max_created_per_connection = 100'000;
  return config;
}

HttpReply post(TestClient& client, std::string_view topic, std::string_view body) {
  client.send("POST /pub/" + std::string(topic) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
              std::to_string(body.size()) + "\r\n\r\n" + std::string(body));
  return read_reply(client);
}

TEST(TopicChurn, PublishingToMoreNewNamesThanTopicsMaxNeverLocksOutANewTopic) {
  RunningServer server(churn_config());
  SseSubscriber sse(server.port(), "/sse/keep");
  ASSERT_TRUE(sse.opened());
  WsTestClient ws(server.port());
  ASSERT_TRUE(ws.open("/ws/keep"));
  TestClient publisher(server.port());
  ASSERT_EQ(publish(publisher, "/pub/keep", "before"), 200);
  TestClient attacker(server.port());
  for (int i = 0; i < 12'000; ++i) ASSERT_EQ(publish(attacker, "/pub/n" + std::to_string(i), "x"), 200) << i;
  ASSERT_EQ(publish(publisher, "/pub/keep", "after"), 200);
  EXPECT_EQ(publish(publisher, "/pub/fresh", "x"), 200);
  ASSERT_TRUE(sse.wait_for(2));
  EXPECT_EQ(sse.events()[0].data, "before");
  EXPECT_EQ(sse.events()[1].data, "after");
  EXPECT_LT(seq_of(sse.events()[0].id), seq_of(sse.events()[1].id));
  for (const char* expected : {"before", "after"}) {
    const std::optional<ServerFrame> m = ws.read_message();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->payload, expected);
  }
}

TEST(TopicChurn, SubscribingAndLeavingMoreNamesThanTopicsMaxNeverLocksOutANewTopic) {
  RunningServer server(churn_config());
  SseSubscriber sse(server.port(), "/sse/keep");
  ASSERT_TRUE(sse.opened());
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  std::string text;
  wsjson::ServerMessage ack;
  // Four pairs a round: eight acks, as many as a client may leave unread.
  for (int round = 0; round < 3'000; ++round) {
    std::string batch;
    for (int k = 0; k < 4; ++k) {
      const std::string name = "s" + std::to_string(round * 4 + k);
      batch += text_frame(R"({"op":"subscribe","topic":")" + name + R"(","req":1})");
      batch += text_frame(R"({"op":"unsubscribe","topic":")" + name + R"(","req":2})");
    }
    client.send_raw(batch);
    for (int k = 0; k < 8; ++k) ASSERT_TRUE(read_ack(client, ack, text)) << round;
  }
  TestClient publisher(server.port());
  EXPECT_EQ(publish(publisher, "/pub/fresh", "x"), 200);
  ASSERT_EQ(publish(publisher, "/pub/keep", "still delivered"), 200);
  ASSERT_TRUE(sse.wait_for(1));
  EXPECT_EQ(sse.events()[0].data, "still delivered");
}

// With the default rule a topic that kept events is held for
// history.ttl_ms: the limit answers 503 meanwhile, and the server recovers
// as they age.
TEST(TopicChurn, AFullBookRecoversAsIdleHistoryExpires) {
  server::Config config;
  config.hub.max_topics = 100;
  config.hub.history_ttl_ms = 300;
  RunningServer server(config);
  TestClient attacker(server.port());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(publish(attacker, "/pub/n" + std::to_string(i), "x"), 200) << i;
  TestClient other(server.port());
  const HttpReply refused = post(other, "late", "x");
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("topic limit reached"), std::string::npos) << refused.body;
  // A WebSocket topic stream is told the same after its 101, with the
  // close code for a condition that passes: try again later.
  WsTestClient ws(server.port());
  ASSERT_TRUE(ws.open("/ws/late"));
  EXPECT_EQ(ws.read_close(), 1013);
  // Waits for the condition itself (the topics aging), within a bound.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int status = refused.status;
  while (status != 200 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    status = publish(other, "/pub/late", "x");
  }
  EXPECT_EQ(status, 200);
}

TEST(TopicChurn, AConnectionMayMakeOnlySoManyTopics) {
  server::Config config;
  config.hub.max_created_per_connection = 5;
  RunningServer server(config);
  TestClient attacker(server.port());
  for (int i = 0; i < 5; ++i) ASSERT_EQ(publish(attacker, "/pub/n" + std::to_string(i), "x"), 200) << i;
  const HttpReply refused = post(attacker, "n5", "x");
  EXPECT_EQ(refused.status, 429);
  EXPECT_NE(refused.body.find("topics.max_created_per_connection"), std::string::npos) << refused.body;
  EXPECT_EQ(publish(attacker, "/pub/n0", "existing topics cost nothing"), 200);
  WsTestClient ws(server.port());
  ASSERT_TRUE(ws.open("/ws"));
  for (int i = 0; i < 5; ++i) {
    ws.send_raw(text_frame(R"({"op":"subscribe","topic":"w)" + std::to_string(i) + R"(","req":1})"));
    std::string text;
    wsjson::ServerMessage ack;
    ASSERT_TRUE(read_ack(ws, ack, text)) << i;
  }
  ws.send_raw(text_frame(R"({"op":"subscribe","topic":"w5","req":1})"));
  const std::optional<ServerFrame> m = ws.read_message();
  ASSERT_TRUE(m);
  EXPECT_NE(m->payload.find("topics.max_created_per_connection"), std::string::npos) << m->payload;
  TestClient other(server.port());
  EXPECT_EQ(publish(other, "/pub/n5", "another connection"), 200);
}

// The server runs in this process: its resident set, in bytes.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

std::size_t live_heap_bytes() {
#ifdef SLUICE_SANITIZER_HEAP
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = ::mallinfo2();  // glibc sums every arena
  return info.uordblks + info.hblkhd;
#endif
}

#ifdef SLUICE_SANITIZER_HEAP
constexpr bool kSanitizerHeap = true;
#else
constexpr bool kSanitizerHeap = false;
#endif

std::size_t growth(std::size_t before, std::size_t after) { return after > before ? after - before : 0; }

// Memory, not time: a book that is full once holds what it will ever hold.
// Churning through thirty times topics.max names afterwards must not grow
// the server by more than a fraction of what one book of topics costs
// (about 2 KiB a topic without its events: 2 MiB for these 1,000), where
// never freeing them would grow it by thirty books.
TEST(TopicChurn, ChurningThroughNamesDoesNotGrowResidentMemory) {
  server::Config config = churn_config();
  config.hub.max_topics = 1'000;
  RunningServer server(config);
  TestClient attacker(server.port());
  for (int i = 0; i < 2'000; ++i) ASSERT_EQ(publish(attacker, "/pub/warm" + std::to_string(i), "x"), 200) << i;
  const std::size_t heap_before = live_heap_bytes();
  const std::size_t resident_before = resident_bytes();
  for (int i = 0; i < 30'000; ++i) ASSERT_EQ(publish(attacker, "/pub/n" + std::to_string(i), "x"), 200) << i;
  const std::size_t heap_after = live_heap_bytes();
  EXPECT_LT(growth(heap_before, heap_after), std::size_t{1} << 20)
      << "live heap " << (heap_before >> 10) << " KiB before, " << (heap_after >> 10) << " KiB after";
  // Under a sanitizer the quarantine keeps freed blocks resident on purpose.
  if (kSanitizerHeap) return;
  const std::size_t resident_after = resident_bytes();
  EXPECT_LT(growth(resident_before, resident_after), std::size_t{1} << 20)
      << "resident " << (resident_before >> 10) << " KiB before, " << (resident_after >> 10) << " KiB after";
}

// A topic freed and made again starts past every id it gave: a client
// resuming from one of them gets a reset notice, not the new topic's
// events as if nothing came between.
TEST(TopicChurn, ResumingFromAFreedTopicGetsAResetNotice) {
  server::Config config = churn_config();
  config.threads = 1;
  config.hub.max_topics = 2;
  RunningServer server(config);
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws"));
  std::string text;
  wsjson::ServerMessage ack;
  client.send_raw(text_frame(R"({"op":"publish","topic":"a","data":"1","req":1})"));
  ASSERT_TRUE(read_ack(client, ack, text));
  const std::string first_id(ack.id);
  client.send_raw(text_frame(R"({"op":"publish","topic":"a","data":"2","req":2})"));
  ASSERT_TRUE(read_ack(client, ack, text));
  TestClient publisher(server.port());
  ASSERT_EQ(publish(publisher, "/pub/b", "x"), 200);
  ASSERT_EQ(publish(publisher, "/pub/c", "x"), 200);  // "a" and "b" made room
  ASSERT_EQ(publish(publisher, "/pub/a", "3"), 200);
  SseSubscriber resumed(server.port(), "/sse/a", 0, first_id);
  ASSERT_TRUE(resumed.opened());
  ASSERT_EQ(publish(publisher, "/pub/a", "4"), 200);
  ASSERT_TRUE(resumed.wait_for(2));
  EXPECT_EQ(resumed.events()[0].type, "sluice-reset");
  EXPECT_EQ(resumed.events()[1].data, "4");
}

}  // namespace
}  // namespace sluice::test::ws
