// The /ws JSON protocol end to end: what the acks carry.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

// Publishes `data` to `topic` until a publish reaches its one subscriber
// (the publish's answer counts it): the client's subscribe, sent before,
// has been answered. At most 500 tries.
bool publish_once_joined(std::uint16_t port, const std::string& topic, const std::string& data) {
  for (int tries = 0; tries < 500; ++tries) {
    const HttpReply reply = http_request(port, "POST", "/pub/" + topic, data);
    if (reply.status != 200) return false;
    if (reply.body.find("\"subscribers\":1") != std::string::npos) return true;
  }
  return false;
}

// A subscription that has received no event yet resumes after the id its
// ack carried: the events published in between are replayed, not missed.
TEST(WsJsonProtocol, TheSubscribeAckCarriesTheTopicsNewestIdToResumeFrom) {
  RunningServer server;
  const std::uint16_t port = server.port();
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(http_request(port, "POST", "/pub/t", "before " + std::to_string(i)).status, 200);
  }
  std::string last_id;
  {
    WsTestClient client(port);
    ASSERT_TRUE(client.open("/ws"));
    client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"t","req":1})"});
    const std::optional<ServerFrame> ack = client.read_message();
    ASSERT_TRUE(ack);
    const std::size_t at = ack->payload.find("\"last_id\":\"");
    ASSERT_NE(at, std::string::npos) << ack->payload;
    last_id = ack->payload.substr(at + 11, ack->payload.find('"', at + 11) - (at + 11));
    EXPECT_EQ(seq_of(last_id), 3u) << ack->payload;
  }
  ASSERT_EQ(http_request(port, "POST", "/pub/t", "while away").status, 200);
  WsTestClient again(port);
  ASSERT_TRUE(again.open("/ws"));
  again.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"t","since":")" + last_id + R"(","req":2})"});
  const std::optional<ServerFrame> ack = again.read_message();
  ASSERT_TRUE(ack);
  EXPECT_NE(ack->payload.find("\"ok\":true"), std::string::npos) << ack->payload;
  const std::optional<ServerFrame> replayed = again.read_message();
  ASSERT_TRUE(replayed);
  EXPECT_NE(replayed->payload.find("\"data\":\"while away\""), std::string::npos) << replayed->payload;
}

// The server's own topics ("$sys") are outside the clients' alphabet: a
// client that names one on a WebSocket is refused as a bad name, as on
// every other route, and makes no topic.
TEST(WsJsonProtocol, AServerTopicNameIsRefusedOnEveryWebSocketRoute) {
  RunningServer server;
  const std::uint16_t port = server.port();
  WsTestClient client(port);
  ASSERT_TRUE(client.open("/ws"));
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"$sys","req":1})"});
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"$made.up","req":2})"});
  for (const char* req :
       {R"("req":1,"ok":false,"error":"bad topic name)", R"("req":2,"ok":false,"error":"bad topic name)"}) {
    const std::optional<ServerFrame> ack = client.read_message();
    ASSERT_TRUE(ack);
    EXPECT_NE(ack->payload.find(req), std::string::npos) << ack->payload;
  }
  TestClient upgrade(port);
  upgrade.send("GET /ws/%24made.up HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  const HttpReply refused = read_reply(upgrade);
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.body.rfind("bad topic name", 0), 0u) << refused.body;
}

// A second subscribe to a topic followed already would leave its own
// `since` and policy unused: it is refused, and the first goes on.
TEST(WsJsonProtocol, ASecondSubscribeToAFollowedTopicIsRefusedAndTheFirstGoesOn) {
  RunningServer server;
  const std::uint16_t port = server.port();
  ASSERT_EQ(http_request(port, "POST", "/pub/t", "before").status, 200);
  WsTestClient client(port);
  ASSERT_TRUE(client.open("/ws"));
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"t","req":1})"});
  const std::optional<ServerFrame> first = client.read_message();
  ASSERT_TRUE(first);
  EXPECT_NE(first->payload.find("\"ok\":true"), std::string::npos) << first->payload;
  client.send(
      {.opcode = kText, .payload = R"({"op":"subscribe","topic":"t","policy":"latest","since":"x:0","req":2})"});
  const std::optional<ServerFrame> second = client.read_message();
  ASSERT_TRUE(second);
  EXPECT_NE(second->payload.find(R"("req":2,"ok":false,"error":"already subscribed to this topic)"), std::string::npos)
      << second->payload;
  ASSERT_TRUE(publish_once_joined(port, "t", "live"));
  const std::optional<ServerFrame> live = client.read_message();
  ASSERT_TRUE(live);
  EXPECT_NE(live->payload.find("\"data\":\"live\""), std::string::npos) << live->payload;
  // Left, it may be joined again.
  client.send({.opcode = kText, .payload = R"({"op":"unsubscribe","topic":"t","req":3})"});
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"t","req":4})"});
  for (const char* expected : {R"("req":3,"ok":true)", R"("req":4,"ok":true)"}) {
    const std::optional<ServerFrame> ack = client.read_message();
    ASSERT_TRUE(ack);
    EXPECT_NE(ack->payload.find(expected), std::string::npos) << ack->payload;
  }
}

// A topic left while its events wait in the queue gives its slot to the
// next topic joined, and that topic's events are never told as the left
// one's losses. Here `a`, under `latest` behind a reader that does not
// read, has its newest event waiting when the client leaves it and joins
// `b`; `b`'s first event once took that event's place and was told as
// `b`'s loss of `a`'s id.
TEST(WsJsonProtocol, ATopicJoinedInALeftOnesSlotNeverTakesItsWaitingEvents) {
  server::Config config;
  config.threads = 1;
  RunningServer server(config);
  const std::uint16_t port = server.port();
  WsTestClient client(port, 4096);
  ASSERT_TRUE(client.open("/ws"));
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"a","policy":"latest","req":1})"});
  const std::optional<ServerFrame> joined = client.read_message();
  ASSERT_TRUE(joined && joined->payload.find("\"ok\":true") != std::string::npos);
  // Far more than the kernel's buffers hold: the newest waits in sluice's queue.
  const std::string big(1024, 'x');
  for (int i = 0; i < 64; ++i) ASSERT_EQ(http_request(port, "POST", "/pub/a", big).status, 200);
  client.send({.opcode = kText, .payload = R"({"op":"unsubscribe","topic":"a","req":2})"});
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"b","policy":"latest","req":3})"});
  // The joins and leaves are answered in order on the one loop: once `b` is
  // joined (its publish reaches a subscriber), its event comes after them.
  ASSERT_TRUE(publish_once_joined(port, "b", "b first")) << "b never joined";
  bool b_seen = false;
  std::size_t a_events = 0;
  for (int i = 0; i < 200 && !b_seen; ++i) {
    const std::optional<ServerFrame> m = client.read_message();
    ASSERT_TRUE(m) << "b's event never came";
    EXPECT_EQ(m->payload.find(R"("op":"dropped","topic":"b")"), std::string::npos) << m->payload;
    if (m->payload.starts_with(R"({"op":"event","topic":"a")")) ++a_events;
    b_seen = m->payload.starts_with(R"({"op":"event","topic":"b")");
  }
  EXPECT_TRUE(b_seen);
  EXPECT_GE(a_events, 1u);
}

// A client whose id cannot be resumed from is told so before the topic's
// first event, even when it joins with its queue full of another topic's
// events that may not give way (drop-newest keeps what waits). The notice
// once went only if the queue had room, and was lost silently otherwise:
// the client then took what followed for what came after its own id.
TEST(WsJsonProtocol, AResetNoticeBehindAFullQueueStillGoesBeforeTheTopicsEvents) {
  server::Config config;
  config.threads = 1;
  config.tcp_send_buffer = 4096;  // the kernel holds little: events wait in the server, under its budget
  config.connection.send.max_frames = 2;
  RunningServer server(config);
  const std::uint16_t port = server.port();
  WsTestClient client(port, 4096);
  ASSERT_TRUE(client.open("/ws"));
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"a","policy":"drop-newest","req":1})"});
  const std::optional<ServerFrame> joined = client.read_message();
  ASSERT_TRUE(joined && joined->payload.find("\"ok\":true") != std::string::npos);
  // Each far larger than the kernel's buffers: the first never leaves the
  // wire, so nothing frees the room the next two take.
  const std::string big(64 * 1024, 'x');
  for (int i = 0; i < 8; ++i) ASSERT_EQ(http_request(port, "POST", "/pub/a", big).status, 200);
  client.send({.opcode = kText,
               .payload = R"({"op":"subscribe","topic":"b","policy":"drop-newest","since":"bogus","req":2})"});
  ASSERT_TRUE(publish_once_joined(port, "b", "b first")) << "b never joined";
  bool reset_seen = false;
  bool b_first_accounted = false;  // received, or told as dropped
  bool b_second_seen = false;
  for (int i = 0; i < 400 && !b_second_seen; ++i) {
    const std::optional<ServerFrame> m = client.read_message();
    ASSERT_TRUE(m) << (reset_seen ? "b's second event never came" : "b's reset notice never came");
    const bool b_event = m->payload.starts_with(R"({"op":"event","topic":"b")");
    EXPECT_TRUE(reset_seen || !b_event) << "an event of b came before its reset notice: " << m->payload;
    const bool b_dropped = m->payload.starts_with(R"({"op":"dropped","topic":"b")");
    EXPECT_TRUE(reset_seen || !b_dropped) << "b's losses were told before its reset: " << m->payload;
    b_first_accounted = b_first_accounted || b_dropped ||
                        (b_event && m->payload.find("\"data\":\"b first\"") != std::string::npos);
    if (!reset_seen && m->payload.starts_with(R"({"op":"reset","topic":"b")")) {
      EXPECT_NE(m->payload.find(R"("reason":"malformed-id")"), std::string::npos) << m->payload;
      reset_seen = true;
      ASSERT_EQ(http_request(port, "POST", "/pub/b", "b second").status, 200);
    }
    b_second_seen = b_event && m->payload.find("\"data\":\"b second\"") != std::string::npos;
  }
  EXPECT_TRUE(b_second_seen);
  EXPECT_TRUE(b_first_accounted) << "b's first event was neither received nor told as dropped";
}

// An unsubscribe's ack is the last the client hears of the topic: what
// still waited in the queue is dropped with it. A client that subscribes
// again since the last id it got before the ack is handed every later
// event once, in order. The waiting events once followed the ack, and the
// replay handed them over a second time.
TEST(WsJsonProtocol, AnUnsubscribesAckIsTheLastOfTheTopicSoResumingRepeatsNothing) {
  server::Config config;
  config.threads = 1;
  RunningServer server(config);
  const std::uint16_t port = server.port();
  WsTestClient client(port, 4096);
  ASSERT_TRUE(client.open("/ws"));
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"a","req":1})"});
  const std::optional<ServerFrame> joined = client.read_message();
  ASSERT_TRUE(joined && joined->payload.find("\"ok\":true") != std::string::npos);
  constexpr int kBigEvents = 64;
  const std::string big(1024, 'x');
  for (int i = 0; i < kBigEvents; ++i) ASSERT_EQ(http_request(port, "POST", "/pub/a", big).status, 200);
  client.send({.opcode = kText, .payload = R"({"op":"unsubscribe","topic":"a","req":2})"});
  std::string last_id;
  bool left = false;
  for (int i = 0; i < 2 * kBigEvents && !left; ++i) {
    const std::optional<ServerFrame> m = client.read_message();
    ASSERT_TRUE(m) << "the unsubscribe's ack never came";
    left = m->payload.find(R"("req":2)") != std::string::npos;
    const std::size_t at = m->payload.find(R"("id":")");
    if (!left && at != std::string::npos) last_id = m->payload.substr(at + 6, m->payload.find('"', at + 6) - at - 6);
  }
  ASSERT_TRUE(left);
  ASSERT_FALSE(last_id.empty()) << "some events were in the kernel before the ack";
  ASSERT_LT(seq_of(last_id), static_cast<std::uint64_t>(kBigEvents)) << "the reader's buffer held them all: no test";
  client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"a","since":")" + last_id + R"(","req":3})"});
  // The resubscription's ack comes first; then every event after last_id,
  // and one published after it, each once.
  const std::optional<ServerFrame> again = client.read_message();
  ASSERT_TRUE(again);
  EXPECT_NE(again->payload.find(R"("req":3)"), std::string::npos) << "events of a left topic came after its ack: "
                                                                   << again->payload;
  ASSERT_EQ(http_request(port, "POST", "/pub/a", "after").status, 200);
  for (std::uint64_t expected = seq_of(last_id) + 1; expected <= kBigEvents + 1; ++expected) {
    const std::optional<ServerFrame> m = client.read_message();
    ASSERT_TRUE(m) << "event " << expected << " never came";
    const std::size_t at = m->payload.find(R"("id":")");
    ASSERT_NE(at, std::string::npos) << m->payload;
    ASSERT_EQ(seq_of(m->payload.substr(at + 6, m->payload.find('"', at + 6) - at - 6)), expected)
        << "every event once and in order";
  }
}

// A client resuming several topics from far back, each of events a large
// share of its budget, is handed them a page at a time: topics in turn,
// never more than the budget holds together. Every topic's events came
// whole, in order, on the one connection; each topic taking its one event
// at once had it cut off again and again, as a slow consumer, however fast
// it read.
TEST(WsJsonProtocol, SeveralTopicsResumedFromFarBackComeWholeOnOneConnection) {
  server::Config config;
  config.connection.send.max_bytes = 256 * 1024;
  config.hub.history_bytes = 4 << 20;  // all events stay replayable
  RunningServer server(config);
  const std::uint16_t port = server.port();
  constexpr int kTopics = 3;
  constexpr int kEventsPerTopic = 8;
  const std::string big(150 * 1024, 'r');  // three of them pass the budget
  std::vector<std::string> first_ids;
  for (int t = 0; t < kTopics; ++t) {
    for (int i = 0; i < kEventsPerTopic; ++i) {
      const HttpReply reply = http_request(port, "POST", "/pub/far" + std::to_string(t), big);
      ASSERT_EQ(reply.status, 200);
      if (i != 0) continue;
      const std::size_t at = reply.body.find("\"id\":\"") + 6;
      first_ids.push_back(reply.body.substr(at, reply.body.find('"', at) - at));
    }
  }
  WsTestClient client(port);
  ASSERT_TRUE(client.open("/ws"));
  for (int t = 0; t < kTopics; ++t) {
    client.send({.opcode = kText,
                 .payload = R"({"op":"subscribe","topic":"far)" + std::to_string(t) + R"(","since":")" +
                            first_ids[static_cast<std::size_t>(t)] + R"("})"});
  }
  std::vector<std::uint64_t> next;
  for (const std::string& id : first_ids) next.push_back(seq_of(id) + 1);
  int events = 0;
  while (events < kTopics * (kEventsPerTopic - 1)) {
    const std::optional<ServerFrame> m = client.read_message();
    ASSERT_TRUE(m) << "after " << events << " events";
    ASSERT_NE(m->opcode, kClose) << "cut off after " << events << " events, close " << m->close_code();
    if (m->payload.find(R"("op":"event")") == std::string::npos) continue;
    const std::size_t topic_at = m->payload.find(R"("topic":"far)") + 12;
    const auto t = static_cast<std::size_t>(m->payload[topic_at] - '0');
    ASSERT_LT(t, next.size());
    const std::size_t id_at = m->payload.find(R"("id":")") + 6;
    EXPECT_EQ(seq_of(m->payload.substr(id_at, m->payload.find('"', id_at) - id_at)), next[t]) << "topic " << t;
    ++next[t];
    ++events;
  }
  EXPECT_EQ(server.server().stats().slow_disconnects, 0u);
}

}  // namespace
}  // namespace sluice::test::ws
