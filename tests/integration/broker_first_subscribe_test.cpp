// A client that subscribes with no id to a topic its node has not read yet,
// with two real sluiced nodes and a real redis-server: once it holds its
// answer (the SSE head, the /ws ack) an event published on the other node
// is its, because the answer waits until the node's reader knows where the
// topic stands in Redis. The /ws ack names that place as an id of the
// stream, which resumes on either node.
#include <nghttp2/nghttp2.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "access_log_lines.hpp"
#include "broker_nodes.hpp"
#include "h2_test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;

class BrokerFirstSubscribe : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.ok()) << redis_.error();
    a_ = std::make_unique<SluicedProcess>(node_settings(redis_));
    ASSERT_NE(a_->port(), 0) << a_->output();
    // B has one loop, so one link to Redis: once a publish on it is taken,
    // its link is up, and its next publish while Redis is stopped times
    // out (504, the tests' clock). With two, the next one may go to the
    // other loop's link, still connecting on a loaded machine (503).
    std::vector<std::string> settings = node_settings(redis_);
    settings.emplace_back("threads=1");
    b_ = std::make_unique<SluicedProcess>(settings);
    ASSERT_NE(b_->port(), 0) << b_->output();
  }

  // Publishes `body` on B, again while B answers 503 (its link to Redis
  // not up yet, or not again after Redis was stopped), for at most 10 s.
  Published taken_on_b(const std::string& topic, const std::string& body) const {
    const auto deadline = Clock::now() + 10s;
    Published p;
    while (Clock::now() < deadline && (p = publish_on(*b_, topic, body)).status == 503) {
    }
    return p;
  }

  // Opens a WebSocket on `path` over HTTP/2 (extended CONNECT), once the
  // node has said it may.
  static std::int32_t connect_websocket(transport::test::H2TestClient& h2, const std::string& path) {
    const bool allowed = h2.pump([&] {
      return nghttp2_session_get_remote_settings(h2.session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
    });
    if (!allowed) return 0;
    const std::int32_t stream = h2.request("CONNECT", path, {{"sec-websocket-version", "13"}}, "", true, "websocket");
    return stream > 0 && h2.flush() ? stream : 0;
  }

  std::uint16_t port_a() const { return static_cast<std::uint16_t>(a_->port()); }
  std::uint16_t port_b() const { return static_cast<std::uint16_t>(b_->port()); }

  RedisServer redis_;
  std::unique_ptr<SluicedProcess> a_, b_;
};

// Every topic is new to A, and each event is published the moment the
// head is in: the first event the subscriber gets is that one, under the
// id B was given.
TEST_F(BrokerFirstSubscribe, AnEventPublishedOnTheOtherNodeOnceTheSseHeadIsInIsDelivered) {
  for (int i = 0; i < 8; ++i) {
    const std::string topic = "fresh" + std::to_string(i);
    // Half the topics have a stream already: the place is its newest event.
    if (i % 2 == 1) {
      ASSERT_EQ(taken_on_b(topic, "before").status, 200);
    }
    SseSubscriber sub(port_a(), "/sse/" + topic);
    ASSERT_TRUE(sub.opened()) << topic;
    const Published p = taken_on_b(topic, "first after the head");
    ASSERT_EQ(p.status, 200) << topic;
    ASSERT_TRUE(sub.wait_for(1, 10s)) << topic;
    expect_exactly(sub.events(), {"first after the head"}, {p.id}, topic);
  }
}

// /ws/{topic}: the 101 waits for the topic's place, so an event published
// on B once the client holds it is delivered.
TEST_F(BrokerFirstSubscribe, AnEventPublishedOnTheOtherNodeOnceTheWsTopicUpgradeIsInIsDelivered) {
  for (int i = 0; i < 4; ++i) {
    const std::string topic = "upgraded" + std::to_string(i);
    if (i % 2 == 1) {
      ASSERT_EQ(taken_on_b(topic, "before").status, 200);
    }
    ws::WsTestClient client(port_a());
    ASSERT_TRUE(client.open("/ws/" + topic)) << topic;
    const Published p = taken_on_b(topic, "first after the 101");
    ASSERT_EQ(p.status, 200) << topic;
    const std::optional<ws::ServerFrame> event = client.read_message();
    ASSERT_TRUE(event.has_value()) << topic;
    EXPECT_EQ(event->payload, "first after the 101") << topic;
  }
}

// A stream of several topics, all new to A, waits for every topic's place:
// an event published on B to each topic once the head is in is delivered.
// One topic of each pair is placed already (another client follows it).
TEST_F(BrokerFirstSubscribe, AStreamOfSeveralTopicsGetsItsHeadOnceEveryTopicIsPlaced) {
  for (int i = 0; i < 4; ++i) {
    const std::string known = "known" + std::to_string(i);
    const std::string fresh = "new" + std::to_string(i);
    SseSubscriber other(port_a(), "/sse/" + known);
    ASSERT_TRUE(other.opened()) << known;
    if (i % 2 == 1) {
      ASSERT_EQ(taken_on_b(fresh, "before").status, 200);
    }
    SseSubscriber sub(port_a(), "/sse?topic=" + known + "&topic=" + fresh);
    ASSERT_TRUE(sub.opened()) << fresh;
    const Published to_fresh = taken_on_b(fresh, "to the new topic");
    const Published to_known = taken_on_b(known, "to the known topic");
    ASSERT_EQ(to_fresh.status, 200);
    ASSERT_EQ(to_known.status, 200);
    ASSERT_TRUE(sub.wait_for(2, 10s)) << fresh;
    // The topics' events may interleave in either order across topics.
    std::vector<SseSubscriber::Event> got = sub.events();
    if (got[0].data != "to the new topic") std::swap(got[0], got[1]);
    expect_exactly(got, {"to the new topic", "to the known topic"}, {to_fresh.id, to_known.id}, fresh);
  }
}

// While Redis is stopped, the stream of a placed topic and a new one gets
// no head (B's publish timing out is the clock), and past
// broker.placement_timeout_ms a 503.
TEST_F(BrokerFirstSubscribe, AStreamOfSeveralTopicsWaitsForTheNewOneThenIsRefused) {
  std::vector<std::string> settings = node_settings(redis_);
  settings.emplace_back("broker.placement_timeout_ms=1500");
  a_ = std::make_unique<SluicedProcess>(settings);
  ASSERT_NE(a_->port(), 0) << a_->output();
  ASSERT_EQ(taken_on_b("elsewhere", "B's link is up").status, 200);
  SseSubscriber other(port_a(), "/sse/known");
  ASSERT_TRUE(other.opened());
  redis_.pause();
  const auto asked = Clock::now();
  TestClient held(port_a());
  held.send("GET /sse?topic=known&topic=unplaced HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(publish_on(*b_, "elsewhere", "times out").status, 504);
  EXPECT_FALSE(held.read_until([](const std::string& got) { return !got.empty(); }, 1ms))
      << "a head before every topic is placed: " << held.buffer();
  const HttpReply reply = read_reply(held, 10s);
  EXPECT_GE(Clock::now() - asked, 1500ms) << "answered before the timeout";
  EXPECT_EQ(reply.status, 503) << reply.head;
  EXPECT_NE(reply.body.find("broker.placement_timeout_ms"), std::string::npos) << reply.body;
  redis_.resume();
}

// While Redis is stopped A's reader cannot place the topic, so the head
// does not come; B's publish of another topic timing out (504, after
// broker.request_timeout_ms) is the clock. Once Redis goes on the head
// comes, and what is published after it is delivered.
// Over HTTP/2 (h2c, nghttp2's client) the same holds for the stream's
// response HEADERS.
TEST_F(BrokerFirstSubscribe, WhileRedisCannotAnswerTheHeadWaitsForThePlace) {
  ASSERT_EQ(taken_on_b("elsewhere", "B's link is up").status, 200);
  redis_.pause();
  SseSubscriber sub(port_a(), "/sse/stopped");
  transport::test::H2TestClient h2(port_a());
  ASSERT_TRUE(h2.ok());
  const std::int32_t h2_sse = h2.request("GET", "/sse/stopped_h2");
  ASSERT_GT(h2_sse, 0);
  const Published clock = publish_on(*b_, "elsewhere", "times out");
  EXPECT_EQ(clock.status, 504);
  EXPECT_FALSE(sub.opened(1ms)) << "a head sent before the topic is placed";
  (void)h2.pump([] { return false; }, 1ms);
  EXPECT_EQ(h2.stream(h2_sse).status, 0) << "HEADERS sent before the topic is placed";
  redis_.resume();
  ASSERT_TRUE(sub.opened(10s));
  ASSERT_TRUE(h2.pump([&] { return h2.stream(h2_sse).status != 0; }, 10s));
  EXPECT_EQ(h2.stream(h2_sse).status, 200);
  const Published p = taken_on_b("stopped", "after the head");
  ASSERT_EQ(p.status, 200);
  ASSERT_TRUE(sub.wait_for(1, 10s));
  expect_exactly(sub.events(), {"after the head"}, {p.id}, "subscriber on A");
  const Published p2 = taken_on_b("stopped_h2", "after the HEADERS");
  ASSERT_EQ(p2.status, 200);
  ASSERT_TRUE(h2.pump([&] { return h2.stream(h2_sse).body.find("after the HEADERS") != std::string::npos; }, 10s));
  EXPECT_NE(h2.stream(h2_sse).body.find("id: " + p2.id + "\n"), std::string::npos) << h2.stream(h2_sse).body;
}

// A WebSocket on /ws/{topic} over HTTP/2 (extended CONNECT, nghttp2's
// client): its answer is the 200, which waits for the topic's place as
// the 101 does over HTTP/1.1. While Redis is stopped (B's publish timing
// out is the clock) no HEADERS come; once it goes on the 200 comes, and
// the stream's first message is what B published after it.
TEST_F(BrokerFirstSubscribe, OverHttp2AWebSocketsAnswerWaitsForThePlace) {
  ASSERT_EQ(taken_on_b("elsewhere", "B's link is up").status, 200);
  transport::test::H2TestClient h2(port_a());
  ASSERT_TRUE(h2.ok());
  redis_.pause();
  const std::int32_t ws = connect_websocket(h2, "/ws/stopped_h2ws");
  ASSERT_GT(ws, 0);
  EXPECT_EQ(publish_on(*b_, "elsewhere", "times out").status, 504);
  (void)h2.pump([] { return false; }, 1ms);
  EXPECT_EQ(h2.stream(ws).status, 0) << "HEADERS sent before the topic is placed";
  redis_.resume();
  ASSERT_TRUE(h2.pump([&] { return h2.stream(ws).status != 0; }, 10s));
  EXPECT_EQ(h2.stream(ws).status, 200);
  const std::string data = "after the 200";
  ASSERT_EQ(taken_on_b("stopped_h2ws", data).status, 200);
  // One unmasked text frame, whole (FIN), the event's data its payload.
  const std::string message = std::string("\x81") + static_cast<char>(data.size()) + data;
  ASSERT_TRUE(h2.pump([&] { return h2.stream(ws).body.size() >= message.size(); }, 10s)) << h2.stream(ws).body;
  EXPECT_EQ(h2.stream(ws).body, message);
  EXPECT_FALSE(h2.stream(ws).closed);
}

// While Redis cannot answer, a client held for its topic's place gets a
// refusal once broker.placement_timeout_ms has passed, not before: an SSE
// request a 503 with Retry-After and the reason (over HTTP/2 too, as its
// HEADERS), a /ws/{topic} its 101 and a 1013 close (over HTTP/2, whose
// answer had not gone, a 503 with Retry-After as an SSE stream's), a /ws
// subscribe an error ack on a connection that reads on. A subscriber whose
// topic was placed before Redis stopped keeps its stream, and gets what is
// published once Redis is back.
TEST_F(BrokerFirstSubscribe, PastThePlacementTimeoutAHeldClientIsRefusedAndOthersGoOn) {
  std::vector<std::string> settings = node_settings(redis_);
  settings.emplace_back("broker.placement_timeout_ms=500");
  a_ = std::make_unique<SluicedProcess>(settings);
  ASSERT_NE(a_->port(), 0) << a_->output();
  SseSubscriber placed(port_a(), "/sse/placed");
  ASSERT_TRUE(placed.opened());
  ws::WsTestClient ws_client(port_a());
  ASSERT_TRUE(ws_client.open("/ws"));

  redis_.pause();
  const auto asked = Clock::now();
  TestClient held(port_a());
  held.send("GET /sse/held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ws_client.send({.opcode = ws::kText, .payload = R"({"op":"subscribe","topic":"held_ws","req":1})"});
  transport::test::H2TestClient h2(port_a());
  ASSERT_TRUE(h2.ok());
  const std::int32_t h2_sse = h2.request("GET", "/sse/held_h2");
  ASSERT_GT(h2_sse, 0);
  const std::int32_t h2_ws = connect_websocket(h2, "/ws/held_h2ws");
  ASSERT_GT(h2_ws, 0);
  ws::WsTestClient topic_client(port_a());
  const ws::UpgradeReply upgraded = topic_client.upgrade({.path = "/ws/held_topic"});
  EXPECT_GE(Clock::now() - asked, 500ms) << "a 101 before the timeout";
  EXPECT_EQ(upgraded.status, 101) << upgraded.head;
  const std::optional<ws::ServerFrame> close = topic_client.read_frame();
  ASSERT_TRUE(close.has_value());
  EXPECT_EQ(close->close_code(), 1013);
  EXPECT_NE(close->payload.find("503 broker unavailable"), std::string::npos) << close->payload;
  const HttpReply reply = read_reply(held, 10s);
  EXPECT_GE(Clock::now() - asked, 500ms) << "answered before the timeout";
  EXPECT_EQ(reply.status, 503) << reply.head;
  EXPECT_NE(reply.head.find("Retry-After: 1\r\n"), std::string::npos) << reply.head;
  EXPECT_NE(reply.body.find("broker.placement_timeout_ms"), std::string::npos) << reply.body;
  EXPECT_TRUE(held.read_until_closed(5s));
  // Over HTTP/2 the response HEADERS are the answer: 503, the reason as
  // the body, no event.
  ASSERT_TRUE(h2.pump([&] { return h2.stream(h2_sse).closed; }, 10s));
  EXPECT_GE(Clock::now() - asked, 500ms);
  EXPECT_EQ(h2.stream(h2_sse).status, 503);
  EXPECT_NE(h2.stream(h2_sse).body.find("broker.placement_timeout_ms"), std::string::npos) << h2.stream(h2_sse).body;
  EXPECT_EQ(h2.stream(h2_sse).body.find("data:"), std::string::npos) << h2.stream(h2_sse).body;
  EXPECT_EQ(h2.stream(h2_sse).header("retry-after"), "1");
  // The WebSocket stream likewise: 503, Retry-After, the reason as the
  // body and no WebSocket frame (a close frame would start 0x88), ended
  // with END_STREAM, not reset.
  ASSERT_TRUE(h2.pump([&] { return h2.stream(h2_ws).closed; }, 10s));
  EXPECT_EQ(h2.stream(h2_ws).status, 503);
  EXPECT_EQ(h2.stream(h2_ws).header("retry-after"), "1");
  EXPECT_EQ(h2.stream(h2_ws).error_code, 0u);
  EXPECT_EQ(h2.stream(h2_ws).body.rfind("broker unavailable", 0), 0u) << h2.stream(h2_ws).body;
  EXPECT_NE(h2.stream(h2_ws).body.find("broker.placement_timeout_ms"), std::string::npos) << h2.stream(h2_ws).body;
  const std::optional<ws::ServerFrame> refused = ws_client.read_message();
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->payload.find(R"("req":1,"ok":false)"), std::string::npos) << refused->payload;
  EXPECT_NE(field_of(refused->payload, "error").find("broker.placement_timeout_ms"), std::string::npos)
      << refused->payload;

  redis_.resume();
  const Published p = taken_on_b("placed", "after Redis is back");
  ASSERT_EQ(p.status, 200);
  ASSERT_TRUE(placed.wait_for(1, 10s));
  expect_exactly(placed.events(), {"after Redis is back"}, {p.id}, "subscriber placed before Redis stopped");
  // A's reader reads again (the event above came through it): the same
  // /ws connection subscribes now, and is answered as usual.
  ws_client.send({.opcode = ws::kText, .payload = R"({"op":"subscribe","topic":"held_ws","req":2})"});
  const std::optional<ws::ServerFrame> ack = ws_client.read_message();
  ASSERT_TRUE(ack.has_value());
  EXPECT_NE(ack->payload.find(R"("req":2,"ok":true)"), std::string::npos) << ack->payload;
}

// The access log's line for an HTTP/2 stream whose HEADERS waited for its
// topic's place is written when they go, with their status: 200 (sse) for
// a stream placed while Redis ran, 503 (http, as a refusal) for an SSE
// stream and a WebSocket refused past broker.placement_timeout_ms while
// Redis was stopped.
TEST_F(BrokerFirstSubscribe, OverHttp2AHeldStreamIsLoggedWithTheStatusItWasAnswered) {
  std::vector<std::string> settings = node_settings(redis_);
  settings.insert(settings.end(), {"broker.placement_timeout_ms=500", "log.access=1", "threads=1"});
  a_ = std::make_unique<SluicedProcess>(settings);
  ASSERT_NE(a_->port(), 0) << a_->output();
  transport::test::H2TestClient h2(port_a());
  ASSERT_TRUE(h2.ok());
  const std::int32_t placed = h2.request("GET", "/sse/logged_placed");
  ASSERT_GT(placed, 0);
  ASSERT_TRUE(h2.pump([&] { return h2.stream(placed).status != 0; }, 10s));
  ASSERT_EQ(h2.stream(placed).status, 200);

  redis_.pause();
  const std::int32_t sse = h2.request("GET", "/sse/logged_held");
  ASSERT_GT(sse, 0);
  const std::int32_t ws = connect_websocket(h2, "/ws/logged_held_ws");
  ASSERT_GT(ws, 0);
  ASSERT_TRUE(h2.pump([&] { return h2.stream(sse).closed && h2.stream(ws).closed; }, 10s));
  EXPECT_EQ(h2.stream(sse).status, 503);
  EXPECT_EQ(h2.stream(ws).status, 503);
  redis_.resume();
  EXPECT_EQ(a_->stop(), 0);

  const std::string log = a_->output();
  const std::string placed_line = access_line_of_stream(log, placed);
  EXPECT_NE(placed_line.find("method=GET"), std::string::npos) << log;
  EXPECT_NE(placed_line.find(" status=200 transport=sse "), std::string::npos) << placed_line;
  const std::string sse_line = access_line_of_stream(log, sse);
  EXPECT_NE(sse_line.find("method=GET"), std::string::npos) << log;
  EXPECT_NE(sse_line.find(" status=503 transport=http "), std::string::npos) << sse_line;
  const std::string ws_line = access_line_of_stream(log, ws);
  EXPECT_NE(ws_line.find("method=CONNECT"), std::string::npos) << log;
  EXPECT_NE(ws_line.find(" status=503 transport=http "), std::string::npos) << ws_line;
}

// The access log's line of an HTTP/1.1 SSE request whose head waited for
// its topic's place is written when the head or the refusal goes, with its
// status: 200 (sse) for a stream placed while Redis ran, 503 (http) past
// broker.placement_timeout_ms while Redis was stopped, and 499 (http) for a
// client that closed its connection before either.
TEST_F(BrokerFirstSubscribe, OverHttp11AHeldStreamIsLoggedWithTheStatusItWasAnswered) {
  std::vector<std::string> settings = node_settings(redis_);
  settings.insert(settings.end(), {"broker.placement_timeout_ms=1000", "log.access=1", "threads=1"});
  a_ = std::make_unique<SluicedProcess>(settings);
  ASSERT_NE(a_->port(), 0) << a_->output();
  SseSubscriber placed(port_a(), "/sse/logged_placed");
  ASSERT_TRUE(placed.opened());

  redis_.pause();
  {
    // The request, then the end of the connection, in that order: the
    // request is routed (and held) before the server reads the end.
    TestClient gone(port_a());
    gone.send("GET /sse/logged_gone HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  }
  TestClient held(port_a());
  held.send("GET /sse/logged_held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const HttpReply reply = read_reply(held, 10s);
  EXPECT_EQ(reply.status, 503) << reply.head;
  redis_.resume();
  EXPECT_EQ(a_->stop(), 0);

  const std::string log = a_->output();
  EXPECT_TRUE(target_logged_with(log, "/sse/logged_placed", " status=200 transport=sse ")) << log;
  EXPECT_TRUE(target_logged_with(log, "/sse/logged_held", " status=503 transport=http ")) << log;
  EXPECT_TRUE(target_logged_with(log, "/sse/logged_gone", " status=499 transport=http ")) << log;
}

// Over HTTP/1.1 a `/ws/{topic}` upgrade whose 101 waits for the topic's
// place is logged when the 101 goes: once placed, or with the 1013 close
// past broker.placement_timeout_ms (the client was sent a 101), and 499
// (http) when the client left before anything was sent.
TEST_F(BrokerFirstSubscribe, OverHttp11AHeldWebSocketIsLoggedWithWhatWasSent) {
  std::vector<std::string> settings = node_settings(redis_);
  settings.insert(settings.end(), {"broker.placement_timeout_ms=1000", "log.access=1", "threads=1"});
  a_ = std::make_unique<SluicedProcess>(settings);
  ASSERT_NE(a_->port(), 0) << a_->output();
  ws::WsTestClient placed(port_a());
  ASSERT_EQ(placed.upgrade({.path = "/ws/logged_ws_placed"}).status, 101);

  redis_.pause();
  {
    // Held, the stream reads nothing, an end of input included; a reset
    // is seen all the same. It comes once the request is a stream.
    ws::WsTestClient gone(port_a());
    gone.send_raw(
        "GET /ws/logged_ws_gone HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    const auto deadline = Clock::now() + 10s;
    while (Clock::now() < deadline &&
           http_request(port_a(), "GET", "/metrics").body.find("sluice_connections{transport=\"ws\"} 2\n") ==
               std::string::npos) {
    }
    gone.reset();
  }
  ws::WsTestClient held(port_a());
  const ws::UpgradeReply upgraded = held.upgrade({.path = "/ws/logged_ws_held"});
  EXPECT_EQ(upgraded.status, 101) << upgraded.head;
  const std::optional<ws::ServerFrame> close = held.read_frame();
  ASSERT_TRUE(close.has_value());
  EXPECT_EQ(close->close_code(), 1013);
  redis_.resume();
  EXPECT_EQ(a_->stop(), 0);

  const std::string log = a_->output();
  EXPECT_TRUE(target_logged_with(log, "/ws/logged_ws_placed", " status=101 transport=ws ")) << log;
  EXPECT_TRUE(target_logged_with(log, "/ws/logged_ws_held", " status=101 transport=ws ")) << log;
  EXPECT_TRUE(target_logged_with(log, "/ws/logged_ws_gone", " status=499 transport=http ")) << log;
}

// An HTTP/2 stream whose HEADERS wait for its topic's place and that its
// client resets (RST_STREAM) before they go has its access log line too:
// 499 (http), as an HTTP/1.1 client that closed before its answer. A
// request behind the resets on the same connection, answered, shows the
// resets were read.
TEST_F(BrokerFirstSubscribe, OverHttp2AHeldStreamResetByItsClientIsLogged) {
  std::vector<std::string> settings = node_settings(redis_);
  settings.insert(settings.end(), {"log.access=1", "threads=1"});
  a_ = std::make_unique<SluicedProcess>(settings);
  ASSERT_NE(a_->port(), 0) << a_->output();
  ASSERT_EQ(taken_on_b("elsewhere", "B's link is up").status, 200);
  transport::test::H2TestClient h2(port_a());
  ASSERT_TRUE(h2.ok());

  redis_.pause();
  const std::int32_t sse = h2.request("GET", "/sse/reset_held");
  ASSERT_GT(sse, 0);
  const std::int32_t ws = connect_websocket(h2, "/ws/reset_held_ws");
  ASSERT_GT(ws, 0);
  // B's publish timing out is the clock: A has read both requests by then
  // (they came before the publish was sent) and holds their HEADERS.
  EXPECT_EQ(publish_on(*b_, "elsewhere", "times out").status, 504);
  (void)h2.pump([] { return false; }, 1ms);
  ASSERT_EQ(h2.stream(sse).status, 0) << "HEADERS sent before the topic is placed";
  ASSERT_EQ(h2.stream(ws).status, 0) << "HEADERS sent before the topic is placed";
  for (const std::int32_t stream : {sse, ws}) {
    ASSERT_EQ(nghttp2_submit_rst_stream(h2.session(), NGHTTP2_FLAG_NONE, stream, NGHTTP2_CANCEL), 0);
  }
  const std::int32_t health = h2.request("GET", "/healthz");
  ASSERT_GT(health, 0);
  ASSERT_TRUE(h2.pump([&] { return h2.stream(health).closed; }, 10s));
  // Answered: ok, or 503 once this node's own links have found Redis stopped.
  EXPECT_TRUE(h2.stream(health).status == 200 || h2.stream(health).status == 503) << h2.stream(health).status;
  redis_.resume();
  EXPECT_EQ(a_->stop(), 0);

  const std::string log = a_->output();
  const std::string sse_line = access_line_of_stream(log, sse);
  EXPECT_NE(sse_line.find("method=GET target=/sse/reset_held "), std::string::npos) << log;
  EXPECT_NE(sse_line.find(" status=499 transport=http "), std::string::npos) << sse_line;
  const std::string ws_line = access_line_of_stream(log, ws);
  EXPECT_NE(ws_line.find("method=CONNECT target=/ws/reset_held_ws "), std::string::npos) << log;
  EXPECT_NE(ws_line.find(" status=499 transport=http "), std::string::npos) << ws_line;
}

// A server that stops answers a stream still held for its topic's place at
// once, as its placement timeout would: 503 with Retry-After, the reason as
// the body, no event (over HTTP/2 as the stream's HEADERS, ended with
// END_STREAM, not reset once timeouts.linger_ms has passed); and logs it so.
TEST_F(BrokerFirstSubscribe, AServerThatStopsAnswersAHeldStream503AtOnce) {
  std::vector<std::string> settings = node_settings(redis_);
  settings.insert(settings.end(), {"broker.placement_timeout_ms=60000", "log.access=1", "threads=1"});
  a_ = std::make_unique<SluicedProcess>(settings);
  ASSERT_NE(a_->port(), 0) << a_->output();
  ASSERT_EQ(taken_on_b("elsewhere", "B's link is up").status, 200);
  transport::test::H2TestClient h2(port_a());
  ASSERT_TRUE(h2.ok());

  redis_.pause();
  TestClient held(port_a());
  held.send("GET /sse/stop_held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::int32_t sse = h2.request("GET", "/sse/stop_held_h2");
  ASSERT_GT(sse, 0);
  ASSERT_TRUE(h2.flush());
  EXPECT_EQ(publish_on(*b_, "elsewhere", "times out").status, 504);
  (void)h2.pump([] { return false; }, 1ms);
  ASSERT_EQ(h2.stream(sse).status, 0) << "HEADERS sent before the topic is placed";
  EXPECT_FALSE(held.read_until([](const std::string& got) { return !got.empty(); }, 1ms)) << held.buffer();
  a_->ask_to_stop();

  const HttpReply reply = read_reply(held, 10s);
  EXPECT_EQ(reply.status, 503) << reply.head;
  EXPECT_NE(reply.head.find("Retry-After: 1\r\n"), std::string::npos) << reply.head;
  EXPECT_NE(reply.body.find("shutting down"), std::string::npos) << reply.body;
  EXPECT_EQ(reply.body.find("data:"), std::string::npos) << reply.body;
  ASSERT_TRUE(h2.pump([&] { return h2.stream(sse).closed; }, 10s));
  EXPECT_EQ(h2.stream(sse).status, 503);
  EXPECT_EQ(h2.stream(sse).header("retry-after"), "1");
  EXPECT_EQ(h2.stream(sse).error_code, 0u);
  EXPECT_NE(h2.stream(sse).body.find("shutting down"), std::string::npos) << h2.stream(sse).body;
  EXPECT_EQ(h2.stream(sse).body.find("data:"), std::string::npos) << h2.stream(sse).body;
  redis_.resume();
  EXPECT_EQ(a_->exit_code(), 0);

  const std::string log = a_->output();
  for (const std::string target : {"/sse/stop_held", "/sse/stop_held_h2"}) {
    const std::string line = access_line_of_target(log, target);
    EXPECT_NE(line.find(" status=503 transport=http "), std::string::npos) << log;
  }
}

// Over /ws: the ack waits for the place and names it (the newest event of
// the stream, in the stream's id form); what is published after the ack is
// delivered; and resuming from the ack's id on the other node brings
// exactly what came after it.
TEST_F(BrokerFirstSubscribe, OverWsTheAckNamesThePlaceAndResumesOnTheOtherNode) {
  const Published before = taken_on_b("acked", "before");
  ASSERT_EQ(before.status, 200);
  std::string acked_id;
  Published after;
  {
    ws::WsTestClient client(port_a());
    ASSERT_TRUE(client.open("/ws"));
    client.send({.opcode = ws::kText, .payload = R"({"op":"subscribe","topic":"acked","req":1})"});
    const std::optional<ws::ServerFrame> ack = client.read_message();
    ASSERT_TRUE(ack.has_value());
    ASSERT_NE(ack->payload.find("\"ok\":true"), std::string::npos) << ack->payload;
    acked_id = field_of(ack->payload, "last_id");
    EXPECT_EQ(acked_id, before.id) << ack->payload;
    after = publish_on(*b_, "acked", "after the ack");
    ASSERT_EQ(after.status, 200);
    const std::optional<ws::ServerFrame> event = client.read_message();
    ASSERT_TRUE(event.has_value());
    EXPECT_EQ(field_of(event->payload, "op"), "event") << event->payload;
    EXPECT_EQ(field_of(event->payload, "data"), "after the ack") << event->payload;
    EXPECT_EQ(field_of(event->payload, "id"), after.id) << event->payload;
  }
  const Published missed = publish_on(*b_, "acked", "missed");
  ASSERT_EQ(missed.status, 200);
  ws::WsTestClient back(port_b());
  ASSERT_TRUE(back.open("/ws"));
  back.send({.opcode = ws::kText,
             .payload = R"({"op":"subscribe","topic":"acked","since":")" + acked_id + R"(","req":2})"});
  const std::optional<ws::ServerFrame> ack = back.read_message();
  ASSERT_TRUE(ack.has_value());
  ASSERT_NE(ack->payload.find("\"ok\":true"), std::string::npos) << ack->payload;
  std::vector<std::string> data, ids;
  while (data.size() < 2) {
    const std::optional<ws::ServerFrame> m = back.read_message();
    ASSERT_TRUE(m.has_value()) << "got " << data.size();
    ASSERT_EQ(field_of(m->payload, "op"), "event") << m->payload;
    data.push_back(field_of(m->payload, "data"));
    ids.push_back(field_of(m->payload, "id"));
  }
  EXPECT_EQ(data, (std::vector<std::string>{"after the ack", "missed"}));
  EXPECT_EQ(ids, (std::vector<std::string>{after.id, missed.id}));
}

// Redis restarted empty under a node that reads the topic: its reader
// tells its subscribers of the reset, and until the next stream is read a
// /ws ack names no id (before, it named the lost stream's epoch, from
// which no node could resume). The next stream's events follow.
TEST_F(BrokerFirstSubscribe, AfterAResetTheWsAckNamesNoIdOfTheLostStream) {
  SseSubscriber kept(port_a(), "/sse/renewed");
  ASSERT_TRUE(kept.opened());
  const Published old = taken_on_b("renewed", "old stream");
  ASSERT_EQ(old.status, 200);
  ASSERT_TRUE(kept.wait_for(1, 10s));
  ASSERT_TRUE(redis_.restart()) << redis_.error();
  ASSERT_TRUE(kept.wait_for(2, 10s)) << "no reset after Redis restarted empty";
  EXPECT_EQ(kept.events()[1].type, "sluice-reset") << kept.events()[1].data;

  ws::WsTestClient client(port_a());
  ASSERT_TRUE(client.open("/ws"));
  client.send({.opcode = ws::kText, .payload = R"({"op":"subscribe","topic":"renewed","req":1})"});
  const std::optional<ws::ServerFrame> ack = client.read_message();
  ASSERT_TRUE(ack.has_value());
  ASSERT_NE(ack->payload.find("\"ok\":true"), std::string::npos) << ack->payload;
  EXPECT_EQ(field_of(ack->payload, "last_id"), "") << ack->payload << " (the lost stream was " << old.id << ")";
  const Published fresh = taken_on_b("renewed", "new stream");
  ASSERT_EQ(fresh.status, 200);
  EXPECT_NE(fresh.id.substr(0, fresh.id.find(':')), old.id.substr(0, old.id.find(':'))) << "a new stream, a new epoch";
  const std::optional<ws::ServerFrame> event = client.read_message();
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(field_of(event->payload, "data"), "new stream") << event->payload;
  EXPECT_EQ(field_of(event->payload, "id"), fresh.id) << event->payload;
}

}  // namespace
}  // namespace sluice::test
