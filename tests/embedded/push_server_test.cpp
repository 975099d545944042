#include "embedded/push_server.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "buf/pool.hpp"
#include "buf/string_sink.hpp"
#include "memory_link.hpp"
#include "proto/sse_parser.hpp"
#include "proto/ws_decoder.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::embedded {
namespace {

using test::MemoryLink;

constexpr std::string_view kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";
constexpr std::string_view kWsRequest =
    "GET /ws/t HTTP/1.1\r\nHost: d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

struct Events final : proto::sse::Handler {
  void on_event(const proto::sse::ReceivedEvent& event) override {
    if (event.type == "message") {
      ids.push_back(std::string(event.id));
      data.push_back(std::string(event.data));
    } else {
      notices.push_back(std::string(event.data));
    }
  }
  std::vector<std::string> ids;
  std::vector<std::string> data;
  std::vector<std::string> notices;
};

Events sse_events(const std::string& wire) {
  Events events;
  EXPECT_EQ(wire.compare(0, kSseHead.size(), kSseHead), 0) << wire.substr(0, 60);
  proto::sse::Parser parser;
  EXPECT_EQ(parser.feed(std::string_view(wire).substr(kSseHead.size()), events), proto::sse::ParseStatus::ok);
  return events;
}

std::string masked(proto::ws::Opcode op, std::string_view payload) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(proto::ws::encode_masked_frame(op, true, false, std::span<const char>(payload.data(), payload.size()),
                                             {1, 2, 3, 4}, sink));
  return out;
}

class PushServerTest : public testing::Test {
 protected:
  buf::Pool pool{{.block_count = 64, .block_size = 196, .reserve = 8}, arena};
  alignas(buf::Pool::kArenaAlign) static inline std::byte arena[buf::Pool::arena_bytes({.block_count = 64, .block_size = 196})];
  PushConnection connection;
};

TEST_F(PushServerTest, AnSseSubscriberGetsTheHeadThenEveryEventInOrder) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n\r\n");
  EXPECT_EQ(link.wire(), kSseHead);
  EXPECT_EQ(connection.phase(), PushConnection::Phase::sse);
  EXPECT_EQ(connection.topic(), "t");
  for (int i = 1; i <= 30; ++i) {
    EXPECT_EQ(server.publish("t", "e" + std::to_string(i)).queued, 1u);
    EXPECT_EQ(server.publish("other", "x").subscribers, 0u);
    if (i % 5 == 0) server.flush();
  }
  const Events events = sse_events(link.wire());
  ASSERT_EQ(events.data.size(), 30u);
  EXPECT_EQ(events.data.front(), "e1");
  for (std::size_t i = 1; i < events.ids.size(); ++i) EXPECT_LT(std::stoull(events.ids[i - 1]), std::stoull(events.ids[i]));
  EXPECT_EQ(events.data.back(), "e30");
  link.peer_closes();
  EXPECT_TRUE(link.closed());
  EXPECT_EQ(server.connections(), 0u);
  EXPECT_EQ(pool.free_blocks(), 64u);
}

TEST_F(PushServerTest, AWebSocketSubscriberIsUpgradedGetsEventsAndPongs) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive(kWsRequest);
  ASSERT_EQ(link.wire().rfind("HTTP/1.1 101 Switching Protocols\r\n", 0), 0u) << link.wire();
  EXPECT_NE(link.wire().find("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), std::string::npos);
  const std::size_t head = link.wire().size();
  link.set_room(0);  // the peer reads nothing for now
  (void)server.publish("t", "one");
  link.receive(masked(proto::ws::Opcode::ping, "p"));
  link.set_room(SIZE_MAX);
  server.flush();
  // The pong overtook the event queued before the ping.
  proto::ws::Decoder decoder({.role = proto::ws::Role::client});
  std::span<const char> in(link.wire().data() + head, link.wire().size() - head);
  proto::ws::DecodeResult r = decoder.feed(in);
  EXPECT_EQ(r.status, proto::ws::DecodeStatus::pong);
  r = decoder.feed(in = in.subspan(r.consumed));
  EXPECT_EQ(r.status, proto::ws::DecodeStatus::message);
  EXPECT_EQ(std::string(r.payload.data(), r.payload.size()), "one");
  link.receive(masked(proto::ws::Opcode::close, ""));
  EXPECT_TRUE(link.closed());
}

// drop-oldest, the default: a subscriber that reads nothing keeps its
// queue's newest events; when it reads again a notice says what it lost.
TEST_F(PushServerTest, ASlowSubscriberLosesTheOldestEventsAndIsToldWhichOnes) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n\r\n");
  link.set_room(0);
  std::size_t dropped = 0;
  for (int i = 1; i <= 40; ++i) dropped += server.publish("t", "e" + std::to_string(i)).dropped;
  EXPECT_GT(dropped, 0u);
  EXPECT_FALSE(connection.unreported_drops().empty());
  link.set_room(SIZE_MAX);
  server.flush();
  server.flush();  // the notice, queued once the first flush made room
  const Events events = sse_events(link.wire());
  ASSERT_EQ(events.notices.size(), 1u);
  EXPECT_EQ(events.notices[0], "{\"topic\":\"t\",\"dropped\":" + std::to_string(dropped) +
                                   ",\"first_id\":\"1\",\"last_id\":\"" + std::to_string(dropped) +
                                   "\",\"policy\":\"drop-oldest\"}");
  ASSERT_EQ(events.data.size() + dropped, 40u);
  EXPECT_EQ(events.data.back(), "e40");
}

TEST_F(PushServerTest, FifoCutsOffASubscriberThatFallsBehind) {
  PushServer server(pool, {.policy = Policy::fifo});
  MemoryLink link(server, connection);
  link.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n\r\n");
  link.set_room(0);
  std::size_t cut_off = 0;
  for (int i = 1; i <= 20 && cut_off == 0; ++i) cut_off += server.publish("t", "e").cut_off;
  EXPECT_EQ(cut_off, 1u);
  EXPECT_EQ(connection.phase(), PushConnection::Phase::closing);
  link.set_room(SIZE_MAX);
  link.flush();
  EXPECT_TRUE(link.closed());
  EXPECT_NE(link.wire().find(": slow consumer, resume from the last id\n\n"), std::string::npos);
}

// A head arriving in pieces is parsed again from its first byte each time
// (the parser is the server's, not the connection's).
TEST_F(PushServerTest, ARequestHeadMayArriveOneByteAtATime) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  for (char c : std::string_view(kWsRequest)) link.receive(std::string_view(&c, 1));
  EXPECT_EQ(connection.phase(), PushConnection::Phase::websocket);
  EXPECT_EQ(link.wire().rfind("HTTP/1.1 101", 0), 0u);
}

// The answer waits in the queue while the peer reads nothing; the
// connection ends once it has gone.
TEST_F(PushServerTest, ARefusedRequestIsAnsweredThoughThePeerIsSlowToRead) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.set_room(0);
  link.receive("GET /nowhere HTTP/1.1\r\nHost: d\r\n\r\nGET /sse/t HTTP/1.1\r\n");
  EXPECT_EQ(connection.phase(), PushConnection::Phase::closing);
  EXPECT_TRUE(link.input().empty());
  link.set_room(SIZE_MAX);
  link.flush();
  EXPECT_TRUE(link.closed());
  EXPECT_EQ(link.wire().rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u) << link.wire();
  EXPECT_EQ(pool.free_blocks(), 64u);
}

TEST_F(PushServerTest, ARequestHeadNotCompleteAfterItsPollsIsAnswered408) {
  PushServer server(pool, {.request_polls = 3});
  MemoryLink link(server, connection);
  link.receive("GET /sse/t HTTP/1.1\r\n");
  for (int i = 0; i < 3; ++i) server.poll(connection);
  EXPECT_EQ(connection.phase(), PushConnection::Phase::request);
  server.poll(connection);
  EXPECT_TRUE(link.closed());
  EXPECT_EQ(link.wire().rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << link.wire();
}

}  // namespace
}  // namespace sluice::embedded
