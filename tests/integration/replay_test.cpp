// Resume without loss: Last-Event-ID replay, the reset notice when history
// cannot cover the gap, and a slow fifo reader that is cut off and resumes.
#include <gtest/gtest.h>

#include <memory>

#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

void publish_n(TestClient& publisher, std::string_view topic, int n) {
  for (int i = 0; i < n; ++i) ASSERT_EQ(publish(publisher, "/pub/" + std::string(topic), "e"), 200);
}

TEST(Replay, LastEventIdResumesWithNoGapAndNoDuplicate) {
  RunningServer server;
  TestClient publisher(server.port());
  std::string last_id;
  {
    SseSubscriber first(server.port(), "/sse/r");
    ASSERT_TRUE(first.opened());
    publish_n(publisher, "r", 5);
    ASSERT_TRUE(first.wait_for(5));
    last_id = first.events()[4].id;
  }
  publish_n(publisher, "r", 5);  // missed while away
  SseSubscriber again(server.port(), "/sse/r", 0, last_id);
  ASSERT_TRUE(again.opened());
  publish_n(publisher, "r", 1);  // live
  ASSERT_TRUE(again.wait_for(6));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(seq_of(again.events()[i].id), static_cast<std::uint64_t>(6 + i));
}

TEST(Replay, QueryParameterWorksForAFirstConnection) {
  RunningServer server;
  TestClient publisher(server.port());
  publish_n(publisher, "q", 3);
  const HttpReply reply = http_request(server.port(), "POST", "/pub/q", "e");
  const std::string id = reply.body.substr(reply.body.find("\"id\":\"") + 6);
  const std::string third = id.substr(0, id.find(':')) + ":3";
  SseSubscriber sub(server.port(), "/sse/q?lastEventId=" + third);
  ASSERT_TRUE(sub.wait_for(1));
  EXPECT_EQ(seq_of(sub.events()[0].id), 4u);
}

// A browser's WebSocket cannot set Last-Event-ID: /ws/{topic} resumes from
// ?lastEventId= too, and an id it cannot resume from is told, as over SSE.
// Before, the parameter was passed over, a resume became a silent gap.
TEST(Replay, AWebSocketOnATopicResumesFromTheQueryParameter) {
  RunningServer server;
  std::string epoch;
  for (int i = 1; i <= 4; ++i) {
    const HttpReply reply = http_request(server.port(), "POST", "/pub/wq", "e" + std::to_string(i));
    ASSERT_EQ(reply.status, 200);
    const std::string id = reply.body.substr(reply.body.find("\"id\":\"") + 6);
    epoch = id.substr(0, id.find(':'));
  }
  ws::WsTestClient resumed(server.port());
  ASSERT_TRUE(resumed.open("/ws/wq?lastEventId=" + epoch + ":2"));
  for (const std::string expected : {"e3", "e4"}) {
    const std::optional<ws::ServerFrame> message = resumed.read_message();
    ASSERT_TRUE(message);
    EXPECT_EQ(message->payload, expected);
  }
  ws::WsTestClient garbled(server.port());
  ASSERT_TRUE(garbled.open("/ws/wq?lastEventId=garbage"));
  const std::optional<ws::ServerFrame> notice = garbled.read_message();
  ASSERT_TRUE(notice);
  EXPECT_NE(notice->payload.find("\"reset\""), std::string::npos) << notice->payload;
}

// An id in the query that does not decode is the client's all the same: it
// is told it cannot resume from it (once it got live events only, untold).
TEST(Replay, AQueryIdThatDoesNotDecodeIsToldAsMalformed) {
  RunningServer server;
  TestClient publisher(server.port());
  publish_n(publisher, "z", 2);
  SseSubscriber sub(server.port(), "/sse/z?lastEventId=%zz");
  ASSERT_TRUE(sub.opened());
  publish_n(publisher, "z", 1);
  ASSERT_TRUE(sub.wait_for(2));
  EXPECT_EQ(sub.events()[0].type, "sluice-reset");
  EXPECT_NE(sub.events()[0].data.find(R"("reason":"malformed-id")"), std::string::npos) << sub.events()[0].data;
  EXPECT_NE(sub.events()[0].data.find(R"("last_id":"%zz")"), std::string::npos) << sub.events()[0].data;
  EXPECT_EQ(seq_of(sub.events()[1].id), 3u);
}

// What a browser's EventSource does when a stream of several topics drops:
// it reconnects with the last id it saw, which names no topic.
// Two ids would leave the server to pick one: a clear refusal instead.
TEST(Replay, TwoLastEventIdHeadersAreRefused) {
  RunningServer server;
  TestClient client(server.port());
  client.send("GET /sse/two HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: a:1\r\nlast-event-id: a:2\r\n\r\n");
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("more than one Last-Event-ID"), std::string::npos) << reply.body;
  // A WebSocket on a topic resumes from the same id, and is refused the same.
  TestClient upgrade(server.port());
  upgrade.send("GET /ws/two HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
               "Last-Event-ID: a:1\r\nLast-Event-ID: a:2\r\n\r\n");
  const HttpReply refused = read_reply(upgrade);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("more than one Last-Event-ID"), std::string::npos) << refused.body;
}

TEST(Replay, SeveralTopicsCannotResumeFromOneIdAndEachIsToldBeforeLiveEvents) {
  RunningServer server;
  TestClient publisher(server.port());
  publish_n(publisher, "m1", 2);
  const HttpReply reply = http_request(server.port(), "POST", "/pub/m2", "e");
  const std::string id = reply.body.substr(reply.body.find("\"id\":\"") + 6);
  const std::string last_seen = id.substr(0, id.find('"'));
  SseSubscriber again(server.port(), "/sse?topic=m1&topic=m2", 0, last_seen);
  ASSERT_TRUE(again.opened());
  publish_n(publisher, "m1", 1);
  ASSERT_TRUE(again.wait_for(3));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(again.events()[i].type, "sluice-reset");
    EXPECT_NE(again.events()[i].data.find("\"reason\":\"ambiguous-id\""), std::string::npos);
    EXPECT_NE(again.events()[i].data.find("\"last_id\":\"" + last_seen + "\""), std::string::npos);
  }
  EXPECT_NE(again.events()[0].data.find("\"topic\":\"m1\""), std::string::npos);
  EXPECT_NE(again.events()[1].data.find("\"topic\":\"m2\""), std::string::npos);
  EXPECT_EQ(seq_of(again.events()[2].id), 3u);  // then live, nothing replayed from the wrong topic
}

TEST(Replay, TooOldAnIdGetsAResetNoticeBeforeLiveEvents) {
  server::Config config;
  config.hub.history_events = 5;
  RunningServer server(config);
  TestClient publisher(server.port());
  std::string epoch;
  {
    SseSubscriber first(server.port(), "/sse/old");
    ASSERT_TRUE(first.opened());
    publish_n(publisher, "old", 2);
    ASSERT_TRUE(first.wait_for(2));
    epoch = first.events()[0].id.substr(0, first.events()[0].id.find(':'));
  }
  publish_n(publisher, "old", 20);
  SseSubscriber again(server.port(), "/sse/old", 0, epoch + ":2");
  ASSERT_TRUE(again.opened());
  publish_n(publisher, "old", 1);
  ASSERT_TRUE(again.wait_for(2));
  EXPECT_EQ(again.events()[0].type, "sluice-reset");
  EXPECT_NE(again.events()[0].data.find("\"reason\":\"too-old\""), std::string::npos);
  EXPECT_NE(again.events()[0].data.find("\"last_id\":\"" + epoch + ":2\""), std::string::npos);
  EXPECT_EQ(seq_of(again.events()[1].id), 23u);
}

TEST(Replay, AnIdFromAnotherRunIsNotMistakenForOurs) {
  RunningServer server;
  TestClient publisher(server.port());
  publish_n(publisher, "e", 3);
  SseSubscriber sub(server.port(), "/sse/e", 0, "previousrun:2");
  ASSERT_TRUE(sub.wait_for(1));
  EXPECT_EQ(sub.events()[0].type, "sluice-reset");
  EXPECT_NE(sub.events()[0].data.find("other-epoch"), std::string::npos);
}

// Publishes `count` events of `payload` to `topic`; returns the first's id.
std::string publish_events(std::uint16_t port, std::string_view topic, std::uint64_t count,
                           const std::string& payload) {
  std::string first_id;
  for (std::uint64_t i = 1; i <= count; ++i) {
    const HttpReply reply = http_request(port, "POST", "/pub/" + std::string(topic), payload);
    if (reply.status != 200) return {};
    if (i == 1) {
      const std::size_t at = reply.body.find("\"id\":\"") + 6;
      first_id = reply.body.substr(at, reply.body.find('"', at) - at);
    }
  }
  return first_id;
}

server::Config long_replay_config() {
  server::Config config;
  config.connection.send.max_bytes = 64 * 1024;
  config.hub.history_bytes = 8 << 20;  // all events stay replayable
  return config;
}

// A replay longer than the send budget is handed over a page at a time as
// the reader drains it: a reader that reads was cut off (fifo) or lost the
// oldest of what it asked for (drop-oldest), only because the whole replay
// was queued at once. Each policy that keeps events gets every one, in
// order, on one connection, then live ones.
TEST(Replay, AReplayPastTheSendBudgetGoesInPagesAndCostsAReaderNothing) {
  RunningServer server(long_replay_config());
  constexpr std::uint64_t kEvents = 300;  // 300 KiB of replay against a 64 KiB budget
  const std::string first_id = publish_events(server.port(), "long", kEvents, std::string(1024, 'p'));
  ASSERT_EQ(seq_of(first_id), 1u);
  for (const char* policy : {"fifo", "drop-oldest", "drop-newest"}) {
    SseSubscriber sub(server.port(), std::string("/sse/long?policy=") + policy, 0, first_id);
    ASSERT_TRUE(sub.wait_for(kEvents - 1)) << policy << ": " << sub.events().size();
    for (std::uint64_t i = 0; i < kEvents - 1; ++i) ASSERT_EQ(seq_of(sub.events()[i].id), i + 2) << policy;
    for (const auto& e : sub.events()) EXPECT_EQ(e.type, "message") << policy;
    ASSERT_EQ(publish(*std::make_unique<TestClient>(server.port()), "/pub/long", "live"), 200);
    ASSERT_TRUE(sub.wait_for(kEvents)) << policy;
    EXPECT_EQ(sub.events().back().data, "live");
  }
  EXPECT_EQ(server.server().stats().slow_disconnects, 0u);
  EXPECT_EQ(server.server().stats().events_dropped, 0u);
}

server::Config small_history() {
  server::Config config;
  config.connection.send.max_bytes = 8 * 1024;
  config.tcp_send_buffer = 4096;
  config.hub.history_events = 100;
  config.linger_timeout_ms = 10000;  // a cut-off stream ends when its reader has read it, not before
  return config;
}

// Resumes `topic` from its first event with a small receive buffer, then
// does not read while 300 more events push every one it has not been
// handed yet out of the history (which keeps 100).
std::unique_ptr<SseSubscriber> overtaken_reader(std::uint16_t port, std::string_view target) {
  const std::string payload(512, 'p');
  const std::string first_id = publish_events(port, "busy", 100, payload);
  if (seq_of(first_id) != 1) return nullptr;
  auto sub = std::make_unique<SseSubscriber>(port, target, 4096, first_id);
  if (!sub->opened() || publish_events(port, "busy", 300, payload).empty()) return nullptr;
  return sub;
}

// While a paged replay waits for its reader, the history may move past
// what it has not handed yet (a busy topic, a small history). A policy
// that may lose events tells the reader what it cannot have, in place,
// and goes on from the oldest event still kept; nothing is skipped
// silently, nothing comes twice.
TEST(Replay, APagedReplayOvertakenByTheHistoryTellsItsLossInPlace) {
  RunningServer server(small_history());
  const auto sub = overtaken_reader(server.port(), "/sse/busy?policy=drop-oldest");
  ASSERT_NE(sub, nullptr);
  ASSERT_TRUE(sub->client().read_until(
      [&](const std::string&) {
        sub->parse_buffered();
        return !sub->events().empty() && seq_of(sub->events().back().id) == 400;
      },
      20s));
  std::uint64_t next = 2;
  bool told = false;
  for (const auto& e : sub->events()) {
    if (e.type == "sluice-dropped") {
      EXPECT_NE(e.data.find("\"first_id\":\""), std::string::npos) << e.data;
      told = true;
      continue;
    }
    ASSERT_EQ(e.type, "message");
    const std::uint64_t seq = seq_of(e.id);
    if (seq != next) {
      EXPECT_TRUE(told) << "a gap before " << seq << " was not told";
      EXPECT_GT(seq, next);
    }
    next = seq + 1;
  }
  EXPECT_TRUE(told);
}

// fifo loses nothing: overtaken, the reader is cut off as one past its
// budget is, with every event it was handed in order and no loss told;
// resuming from its last id it hears that the rest is gone (too-old).
TEST(Replay, APagedFifoReplayOvertakenByTheHistoryIsCutOff) {
  RunningServer server(small_history());
  const auto sub = overtaken_reader(server.port(), "/sse/busy");
  ASSERT_NE(sub, nullptr);
  ASSERT_TRUE(sub->client().read_until_closed(20s));
  EXPECT_NE(sub->client().buffer().find(": slow consumer, resume from the last id\n"), std::string::npos);
  sub->parse_buffered();
  ASSERT_FALSE(sub->events().empty());
  for (std::size_t i = 0; i < sub->events().size(); ++i) {
    ASSERT_EQ(sub->events()[i].type, "message");
    ASSERT_EQ(seq_of(sub->events()[i].id), i + 2);
  }
  EXPECT_EQ(server.server().stats().slow_disconnects, 1u);
  SseSubscriber resumed(server.port(), "/sse/busy", 0, sub->events().back().id);
  ASSERT_TRUE(resumed.wait_for(1));
  EXPECT_EQ(resumed.events()[0].type, "sluice-reset");
  EXPECT_NE(resumed.events()[0].data.find("too-old"), std::string::npos) << resumed.events()[0].data;
}

TEST(Replay, SlowFifoReaderIsCutOffResumesAndMissesNothing) {
  server::Config config;
  config.connection.send.max_bytes = 32 * 1024;
  config.tcp_send_buffer = 4096;
  config.tcp_notsent_lowat = 1024;
  config.linger_timeout_ms = 200;
  config.hub.history_events = 5000;
  config.hub.history_bytes = 8 << 20;  // all 2,000 events stay replayable
  RunningServer server(config);
  TestClient publisher(server.port());
  constexpr int kEvents = 2000;
  std::vector<std::uint64_t> seen;
  std::string last_id;
  int cut_offs = 0;
  auto sub = std::make_unique<SseSubscriber>(server.port(), "/sse/lossless", 4096);
  ASSERT_TRUE(sub->opened());
  const std::string payload(512, 'p');
  const auto take = [&] {
    sub->parse_buffered();
    for (const auto& e : sub->events()) {
      seen.push_back(seq_of(e.id));
      last_id = e.id;
    }
    sub->events().clear();
  };
  for (int i = 1; i <= kEvents; ++i) {
    ASSERT_EQ(publish(publisher, "/pub/lossless", payload), 200);
    if (i % 25 != 0) continue;
    // A slow reader: one read per 25 events published.
    sub->client().read_until([](const std::string& b) { return !b.empty(); }, 1s);
    take();
    if (sub->client().eof()) {
      ++cut_offs;
      sub = std::make_unique<SseSubscriber>(server.port(), "/sse/lossless", 4096, last_id);
      ASSERT_TRUE(sub->opened());
    }
  }
  // Publishing is over; the reader catches up, resuming after each cut. A
  // read may bring a few events only (the reader's buffer is 4 KiB): the
  // bound is on time and on reads enough for one event a read.
  const auto catch_up_deadline = std::chrono::steady_clock::now() + 60s;
  for (int attempt = 0; attempt < 4 * kEvents && std::chrono::steady_clock::now() < catch_up_deadline &&
                        (seen.empty() || seen.back() != kEvents);
       ++attempt) {
    sub->client().read_until([](const std::string& b) { return !b.empty(); }, 5s);
    take();
    if (sub->client().eof()) {
      ++cut_offs;
      sub = std::make_unique<SseSubscriber>(server.port(), "/sse/lossless", 4096, last_id);
      ASSERT_TRUE(sub->opened());
    }
  }
  EXPECT_GT(cut_offs, 0);
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kEvents));
  for (int i = 0; i < kEvents; ++i) ASSERT_EQ(seen[i], static_cast<std::uint64_t>(i + 1));
  std::printf("fifo reader cut off %d times, received all %d events in order\n", cut_offs, kEvents);
}

}  // namespace
}  // namespace sluice::test
