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
      notice_types.push_back(std::string(event.type));
      notices.push_back(std::string(event.data));
    }
  }
  std::vector<std::string> notice_types;
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
  EXPECT_EQ(connection.topic_count(), 1u);
  EXPECT_EQ(connection.topic(0), "t");
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

// Pings that come in together are answered with the latest one's pong: a
// pong not yet sent is as good as none, and one each filled the four
// control slots, so the fifth ping of a segment closed a client that
// read everything (1008).
TEST_F(PushServerTest, PingsThatComeTogetherAreAnsweredWithTheLatestPong) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive(kWsRequest);
  const std::size_t head = link.wire().size();
  std::string pings;
  for (char n = '1'; n <= '6'; ++n) pings += masked(proto::ws::Opcode::ping, std::string(1, n));
  link.receive(pings);
  EXPECT_EQ(connection.phase(), PushConnection::Phase::websocket);
  proto::ws::Decoder decoder({.role = proto::ws::Role::client});
  std::span<const char> in(link.wire().data() + head, link.wire().size() - head);
  const proto::ws::DecodeResult r = decoder.feed(in);
  EXPECT_EQ(r.status, proto::ws::DecodeStatus::pong);
  EXPECT_EQ(std::string(r.payload.data(), r.payload.size()), "6");
  EXPECT_EQ(r.consumed, in.size()) << "one pong";
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
  EXPECT_FALSE(connection.unreported_drops(0).empty());
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

// A cut-off subscriber's backlog is dropped at once: it resumes from the
// last id it got, and only the hint waits. A close the peer does not take
// within PushConfig::close_polls is reset and every block goes back.
TEST_F(PushServerTest, ACutOffDropsItsBacklogAndACloseNotTakenInTimeIsReset) {
  PushServer server(pool, {.policy = Policy::fifo, .heartbeat_polls = 0, .close_polls = 3});
  MemoryLink link(server, connection);
  link.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n\r\n");
  link.set_room(0);
  std::size_t cut_off = 0;
  for (int i = 1; i <= 20 && cut_off == 0; ++i) cut_off += server.publish("t", "e").cut_off;
  ASSERT_EQ(cut_off, 1u);
  EXPECT_EQ(link.out().data_frames(), 0u);
  EXPECT_EQ(link.out().control_frames(), 1u);
  for (int i = 0; i < 3; ++i) server.poll(connection);
  EXPECT_FALSE(link.closed());
  server.poll(connection);
  EXPECT_TRUE(link.aborted());
  EXPECT_EQ(connection.phase(), PushConnection::Phase::idle);
  EXPECT_EQ(server.connections(), 0u);
  EXPECT_EQ(pool.free_blocks(), 64u);
}

// PushConfig's poll limits take any value of their type: a count that
// wrapped at 255 never reached a limit of 255.
TEST_F(PushServerTest, PollLimitsOf255Fire) {
  PushServer server(pool, {.policy = Policy::fifo, .request_polls = 255, .heartbeat_polls = 0, .close_polls = 255});
  MemoryLink slow(server, connection);
  slow.receive("GET /sse/t HTTP/1.1\r\n");
  for (int i = 0; i < 255; ++i) server.poll(connection);
  EXPECT_FALSE(slow.closed());
  server.poll(connection);
  EXPECT_TRUE(slow.closed());
  EXPECT_EQ(slow.wire().rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << slow.wire();

  PushConnection cut_connection;
  MemoryLink cut(server, cut_connection);
  cut.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n\r\n");
  cut.set_room(0);
  std::size_t cut_off = 0;
  for (int i = 1; i <= 20 && cut_off == 0; ++i) cut_off += server.publish("t", "e").cut_off;
  ASSERT_EQ(cut_off, 1u);
  for (int i = 0; i < 255; ++i) server.poll(cut_connection);
  EXPECT_FALSE(cut.aborted());
  server.poll(cut_connection);
  EXPECT_TRUE(cut.aborted());
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

// A request the client's FIN cuts short is answered 400 saying so; a FIN
// after nothing, or after a blank line alone, ends the connection
// unanswered.
TEST_F(PushServerTest, ARequestCutShortByTheClientsFinIsAnswered400) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n");
  link.peer_closes();
  EXPECT_TRUE(link.closed());
  EXPECT_EQ(link.wire().rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << link.wire();
  EXPECT_NE(link.wire().find("the request ended (the client closed its side) before it was whole\n"),
            std::string::npos);

  PushConnection quiet_connection;
  MemoryLink quiet(server, quiet_connection);
  quiet.receive("\r\n");
  quiet.peer_closes();
  EXPECT_TRUE(quiet.closed());
  EXPECT_EQ(quiet.wire(), "");

  PushConnection silent_connection;
  MemoryLink silent(server, silent_connection);
  silent.peer_closes();
  EXPECT_TRUE(silent.closed());
  EXPECT_EQ(silent.wire(), "");
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

TEST_F(PushServerTest, ASubscriberFollowsTheTopicsOfItsPathAndQuery) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive("GET /sse/a?topic=b&topic=a&topic=c HTTP/1.1\r\nHost: d\r\n\r\n");
  ASSERT_EQ(connection.phase(), PushConnection::Phase::sse);
  ASSERT_EQ(connection.topic_count(), 3u);  // "a" twice is followed once
  EXPECT_EQ(server.subscribers("b"), 1u);
  for (std::string_view topic : {"a", "x", "b", "c", "a"}) (void)server.publish(topic, topic);
  server.flush();
  const Events events = sse_events(link.wire());
  EXPECT_EQ(events.data, (std::vector<std::string>{"a", "b", "c", "a"}));
  EXPECT_EQ(events.ids, (std::vector<std::string>{"1", "3", "4", "5"}));
}

TEST_F(PushServerTest, AWebSocketSubscriberNamesItsTopicsInTheQuery) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  std::string request(kWsRequest);
  request.replace(request.find("/ws/t"), 5, "/ws?topic=a&topic=b");
  link.receive(request);
  ASSERT_EQ(connection.phase(), PushConnection::Phase::websocket) << link.wire();
  const std::size_t head = link.wire().size();
  for (std::string_view topic : {"a", "x", "b"}) (void)server.publish(topic, topic);
  server.flush();
  proto::ws::Decoder decoder({.role = proto::ws::Role::client});
  std::span<const char> in(link.wire().data() + head, link.wire().size() - head);
  std::vector<std::string> got;
  for (proto::ws::DecodeResult r = decoder.feed(in); r.status == proto::ws::DecodeStatus::message;
       r = decoder.feed(in)) {
    got.emplace_back(r.payload.data(), r.payload.size());
    in = in.subspan(r.consumed);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b"}));
}

// The connection's topic table holds kMaxTopicsPerConnection: a request
// naming one more is answered 400, naming the limit, and follows nothing.
TEST_F(PushServerTest, ARequestNamingMoreTopicsThanTheTableHoldsIsAnswered400) {
  static_assert(kMaxTopicsPerConnection == 4);
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive("GET /sse?topic=a&topic=b&topic=c&topic=d&topic=e HTTP/1.1\r\nHost: d\r\n\r\n");
  EXPECT_TRUE(link.closed());
  EXPECT_EQ(link.wire().rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << link.wire();
  EXPECT_NE(link.wire().find("at most 4 topics (kMaxTopicsPerConnection)"), std::string::npos);
  EXPECT_EQ(server.subscribers("a"), 0u);
  EXPECT_EQ(pool.free_blocks(), 64u);

  PushConnection second;
  MemoryLink four(server, second);
  four.receive("GET /sse?topic=a&topic=b&topic=c&topic=d HTTP/1.1\r\nHost: d\r\n\r\n");
  EXPECT_EQ(second.phase(), PushConnection::Phase::sse);
  EXPECT_EQ(server.subscribers("d"), 1u);

  PushConnection third;
  MemoryLink none(server, third);
  none.receive("GET /sse HTTP/1.1\r\nHost: d\r\n\r\n");
  EXPECT_EQ(none.wire().rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << none.wire();
  EXPECT_NE(none.wire().find("name a topic"), std::string::npos);
}

// The handshake is the server's: a key given twice leaves which one the
// accept answers a guess, and a list split over two lines is read whole.
TEST_F(PushServerTest, AWebSocketKeyGivenTwiceIsRefusedAndAListOnTwoLinesIsRead) {
  PushServer server(pool);
  MemoryLink twice(server, connection);
  twice.receive(
      "GET /ws/t HTTP/1.1\r\nHost: d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n"
      "Sec-WebSocket-Version: 13\r\n\r\n");
  EXPECT_EQ(twice.wire().rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << twice.wire();
  EXPECT_NE(twice.wire().find("Sec-WebSocket-Key given more than once"), std::string::npos);
  EXPECT_EQ(server.subscribers("t"), 0u);

  PushConnection second;
  MemoryLink split(server, second);
  split.receive(
      "GET /ws/t HTTP/1.1\r\nHost: d\r\nUpgrade: websocket\r\nConnection: keep-alive\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  EXPECT_EQ(split.wire().rfind("HTTP/1.1 101 Switching Protocols\r\n", 0), 0u) << split.wire();
  EXPECT_EQ(server.subscribers("t"), 1u);
}

// Each topic's losses are told under its own name.
TEST_F(PushServerTest, DropsAreToldPerTopic) {
  PushServer server(pool);
  MemoryLink link(server, connection);
  link.receive("GET /sse?topic=a&topic=b HTTP/1.1\r\nHost: d\r\n\r\n");
  link.set_room(0);
  for (int i = 0; i < 20; ++i) (void)server.publish(i % 2 == 0 ? "a" : "b", "e");
  link.set_room(SIZE_MAX);
  server.flush();
  server.flush();
  const Events events = sse_events(link.wire());
  ASSERT_EQ(events.notices.size(), 2u);
  EXPECT_EQ(events.notices[0].rfind("{\"topic\":\"a\",\"dropped\":2,", 0), 0u) << events.notices[0];
  EXPECT_EQ(events.notices[1].rfind("{\"topic\":\"b\",\"dropped\":2,", 0), 0u) << events.notices[1];
  EXPECT_EQ(events.data.size(), 16u);
}

TEST_F(PushServerTest, AnIdleSubscriberGetsAHeartbeatEveryConfiguredPolls) {
  PushServer server(pool, {.heartbeat_polls = 3});
  MemoryLink link(server, connection);
  link.receive("GET /sse/t HTTP/1.1\r\nHost: d\r\n\r\n");
  server.poll(connection);
  server.poll(connection);
  EXPECT_EQ(link.wire(), kSseHead);
  server.poll(connection);
  EXPECT_EQ(link.wire(), std::string(kSseHead) + ":\n\n");
  // An event sent restarts the count.
  (void)server.publish("t", "e");
  server.flush();
  const std::size_t after_event = link.wire().size();
  server.poll(connection);
  server.poll(connection);
  EXPECT_EQ(link.wire().size(), after_event);
  server.poll(connection);
  EXPECT_EQ(link.wire().substr(after_event), ":\n\n");
  // Nothing is added to a queue that is not moving.
  link.set_room(0);
  (void)server.publish("t", "e");
  server.flush();
  for (int i = 0; i < 3; ++i) server.poll(connection);
  EXPECT_EQ(link.out().data_frames(), 1u);
}

TEST_F(PushServerTest, AnIdleWebSocketSubscriberIsPinged) {
  PushServer server(pool, {.heartbeat_polls = 2});
  MemoryLink link(server, connection);
  link.receive(kWsRequest);
  const std::size_t head = link.wire().size();
  server.poll(connection);
  server.poll(connection);
  proto::ws::Decoder decoder({.role = proto::ws::Role::client});
  const proto::ws::DecodeResult r =
      decoder.feed(std::span<const char>(link.wire().data() + head, link.wire().size() - head));
  EXPECT_EQ(r.status, proto::ws::DecodeStatus::ping);
  EXPECT_EQ(r.consumed, link.wire().size() - head);
}

class PushServerHistoryTest : public PushServerTest {
 protected:
  // Publishes events 1..n, alternating topics t and u, data "e{id}".
  static void publish_events(PushServer& server, int n) {
    for (int id = 1; id <= n; ++id) (void)server.publish(id % 2 == 1 ? "t" : "u", "e" + std::to_string(id));
  }
  Events resume_from(PushServer& server, std::string_view last_id, std::string_view path = "/sse/t?topic=u") {
    MemoryLink link(server, connection);
    link.receive("GET " + std::string(path) + " HTTP/1.1\r\nHost: d\r\nLast-Event-ID: " + std::string(last_id) +
                 "\r\n\r\n");
    server.flush();
    Events events = sse_events(link.wire());
    link.peer_closes();
    return events;
  }
  HistoryRecord records[4];
};

TEST_F(PushServerHistoryTest, AReturningSubscriberGetsTheEventsAfterItsLastId) {
  PushServer server(pool, {.history = records});
  publish_events(server, 4);
  const Events events = resume_from(server, "1");
  EXPECT_TRUE(events.notices.empty());
  EXPECT_EQ(events.ids, (std::vector<std::string>{"2", "3", "4"}));
  EXPECT_EQ(events.data, (std::vector<std::string>{"e2", "e3", "e4"}));
  // One topic of the two: only its events.
  const Events only_u = resume_from(server, "1", "/sse/u");
  EXPECT_EQ(only_u.data, (std::vector<std::string>{"e2", "e4"}));
  // ?lastEventId= for a first connection, on the WebSocket as well.
  MemoryLink ws(server, connection);
  std::string request(kWsRequest);
  request.replace(request.find("/ws/t"), 5, "/ws/t?lastEventId=2");
  ws.receive(request);
  server.flush();
  EXPECT_NE(ws.wire().find("e3"), std::string::npos);
  EXPECT_EQ(ws.wire().find("e1"), std::string::npos);
}

// The history holds four events: a client whose last id is older than
// that is told before anything else that it missed some, then gets what
// is kept.
TEST_F(PushServerHistoryTest, AResumeFromBeforeTheHistoryIsToldItMissedEvents) {
  PushServer server(pool, {.history = records});
  publish_events(server, 10);
  EXPECT_EQ(server.history().size(), 4u);
  EXPECT_EQ(server.history().lost_through(), 6u);
  const Events events = resume_from(server, "3");
  ASSERT_EQ(events.notice_types, (std::vector<std::string>{"sluice-reset", "sluice-reset"}));
  EXPECT_EQ(events.notices[0], "{\"topic\":\"t\",\"reason\":\"too-old\",\"last_id\":\"3\"}");
  EXPECT_EQ(events.notices[1], "{\"topic\":\"u\",\"reason\":\"too-old\",\"last_id\":\"3\"}");
  EXPECT_EQ(events.ids, (std::vector<std::string>{"7", "8", "9", "10"}));
  // From the newest lost id on, nothing is missing.
  const Events from_six = resume_from(server, "6");
  EXPECT_TRUE(from_six.notices.empty());
  EXPECT_EQ(from_six.ids.size(), 4u);
}

// A resume that cannot be told what it missed (no pool block left for its
// notice) must not read on past the gap as if there were none: it is cut
// off, and comes back later with the same id.
TEST_F(PushServerHistoryTest, AResumeWithNoRoomToBeToldItMissedEventsIsCutOff) {
  constexpr buf::PoolConfig kOneDataBlock{.block_count = 9, .block_size = 196, .reserve = 8};
  alignas(buf::Pool::kArenaAlign) static std::byte small_arena[buf::Pool::arena_bytes(kOneDataBlock)];
  buf::Pool small(kOneDataBlock, small_arena);
  PushServer server(small, {.history = records});
  publish_events(server, 10);
  MemoryLink link(server, connection);
  link.receive("GET /sse/t?topic=u HTTP/1.1\r\nHost: d\r\nLast-Event-ID: 3\r\n\r\n");
  server.flush();
  EXPECT_TRUE(link.closed());
  EXPECT_NE(link.wire().find(": slow consumer, resume from the last id\n\n"), std::string::npos);
  const Events events = sse_events(link.wire());
  EXPECT_LT(events.notices.size(), 2u);  // not every topic could be told
  EXPECT_TRUE(events.data.empty());      // and nothing was read on past the gap
}

TEST_F(PushServerHistoryTest, AnEventLongerThanARecordIsNotKeptAndCountsAsMissed) {
  PushServer server(pool, {.history = records});
  (void)server.publish("t", "e1");
  (void)server.publish("t", std::string(kHistoryDataBytes + 1, 'x'));
  (void)server.publish("t", "e3");
  EXPECT_EQ(server.history().size(), 2u);
  const Events events = resume_from(server, "1");
  ASSERT_EQ(events.notice_types.size(), 2u);
  EXPECT_NE(events.notices[0].find("too-old"), std::string::npos);
  EXPECT_EQ(events.data, (std::vector<std::string>{"e3"}));
}

TEST_F(PushServerHistoryTest, AnIdThisServerHasNotSentOrNoIdAtAllIsToldSo) {
  PushServer server(pool, {.history = records});
  publish_events(server, 2);
  const Events unknown = resume_from(server, "99", "/sse/t");  // the device restarted: ids began again
  ASSERT_EQ(unknown.notices.size(), 1u);
  EXPECT_EQ(unknown.notices[0], "{\"topic\":\"t\",\"reason\":\"unknown-id\",\"last_id\":\"99\"}");
  EXPECT_TRUE(unknown.data.empty());
  // The id is echoed as the number it is, however it was spelt.
  const Events zeros = resume_from(server, std::string(300, '0') + "99", "/sse/t");
  ASSERT_EQ(zeros.notices.size(), 1u);
  EXPECT_EQ(zeros.notices[0], unknown.notices[0]);
  const Events malformed = resume_from(server, "1\"x", "/sse/t");
  ASSERT_EQ(malformed.notices.size(), 1u);
  EXPECT_EQ(malformed.notices[0], "{\"topic\":\"t\",\"reason\":\"malformed-id\",\"last_id\":\"\"}");
  EXPECT_TRUE(malformed.data.empty());
}

TEST_F(PushServerHistoryTest, WithoutAHistoryEveryResumeIsToldItMissedEvents) {
  PushServer server(pool);
  publish_events(server, 3);
  const Events events = resume_from(server, "1", "/sse/t");
  ASSERT_EQ(events.notices.size(), 1u);
  EXPECT_NE(events.notices[0].find("too-old"), std::string::npos);
  EXPECT_TRUE(events.data.empty());
  EXPECT_TRUE(resume_from(server, "3", "/sse/t").notices.empty());
}

}  // namespace
}  // namespace sluice::embedded
