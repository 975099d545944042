// H2Session served by H2TestServer over loopback TCP, against nghttp2's own
// client: requests and responses, extended CONNECT, the limits, and flow
// control acting as backpressure on one stream while the others go on.
#include "transport/h2_session.hpp"

#include <gtest/gtest.h>

#include <string>

#include "h2_test_client.hpp"
#include "h2_test_server.hpp"

namespace sluice::transport::test {
namespace {

bool has_all(const std::string& body, int events, const std::string& prefix = "e") {
  for (int i = 0; i < events; ++i) {
    if (body.find("data: " + prefix + std::to_string(i) + "\n\n") == std::string::npos) return false;
  }
  return true;
}

TEST(H2Session, ServesAnEventStreamAndAPublishOnOneConnection) {
  H2TestServer server({});
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t sse = client.request("GET", "/sse/news");
  ASSERT_TRUE(client.pump([&] { return client.stream(sse).body.find(": open") != std::string::npos; }));
  EXPECT_EQ(client.stream(sse).status, 200);
  const std::int32_t pub = client.request("POST", "/pub/news", {}, "hello");
  ASSERT_TRUE(client.pump([&] { return client.stream(pub).closed; }));
  EXPECT_EQ(client.stream(pub).status, 200);
  EXPECT_EQ(client.stream(pub).body, "{\"subscribers\":1}");
  ASSERT_TRUE(client.pump([&] { return client.stream(sse).body.find("data: hello\n\n") != std::string::npos; }));
  EXPECT_FALSE(client.stream(sse).closed);

  const std::int32_t missing = client.request("GET", "/nowhere");
  ASSERT_TRUE(client.pump([&] { return client.stream(missing).closed; }));
  EXPECT_EQ(client.stream(missing).status, 404);
}

TEST(H2Session, ManyStreamsOnOneConnectionEachGetEveryEvent) {
  H2TestServer server({});
  H2TestClient client(server.port());
  constexpr int kStreams = 50;
  constexpr int kEvents = 20;
  std::vector<std::int32_t> ids;
  for (int i = 0; i < kStreams; ++i) ids.push_back(client.request("GET", "/sse/t" + std::to_string(i % 5)));
  ASSERT_TRUE(client.pump([&] { return server.subscribers("t0") + server.subscribers("t4") == 20; }));
  for (int e = 0; e < kEvents; ++e) {
    for (int t = 0; t < 5; ++t) EXPECT_EQ(server.publish("t" + std::to_string(t), "e" + std::to_string(e)), 10);
  }
  ASSERT_TRUE(client.pump([&] {
    for (const std::int32_t id : ids) {
      if (!has_all(client.stream(id).body, kEvents)) return false;
    }
    return true;
  }));
}

// RFC 8441: the server announces SETTINGS_ENABLE_CONNECT_PROTOCOL, a
// CONNECT with :protocol opens a stream both ways.
TEST(H2Session, AnExtendedConnectStreamCarriesBytesBothWays) {
  H2TestServer server({});
  H2TestClient client(server.port());
  ASSERT_TRUE(client.pump([&] {
    return nghttp2_session_get_remote_settings(client.session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
  }));
  const std::int32_t ws = client.request("CONNECT", "/ws/news", {}, "", true, "websocket");
  ASSERT_TRUE(client.pump([&] { return client.stream(ws).status == 200; }));
  client.send(ws, "\x81\x05hello", false);
  ASSERT_TRUE(client.pump([&] { return client.stream(ws).body == "\x81\x05hello"; }));
  client.send(ws, "", true);
  ASSERT_TRUE(client.pump([&] { return client.stream(ws).closed; }));
  EXPECT_EQ(client.stream(ws).error_code, 0u);
}

TEST(H2Session, OneStreamPastTheConcurrencyLimitIsRefused) {
  H2ServerOptions options;
  options.limits.max_concurrent_streams = 4;
  H2TestServer server(options);
  H2TestClient client(server.port());
  // All five go out with the preface, before the client has seen the
  // server's SETTINGS (after that, nghttp2's client would hold the fifth
  // back itself).
  std::vector<std::int32_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(client.request("GET", "/sse/x"));
  ASSERT_TRUE(client.pump([&] { return client.stream(ids[4]).closed; }));
  EXPECT_EQ(client.stream(ids[4]).error_code, static_cast<std::uint32_t>(NGHTTP2_REFUSED_STREAM));
  ASSERT_TRUE(client.pump([&] { return server.subscribers("x") == 4; }));
  EXPECT_FALSE(client.goaway());
  EXPECT_EQ(server.publish("x", "still"), 4);
  ASSERT_TRUE(client.pump([&] { return client.stream(ids[3]).body.find("data: still") != std::string::npos; }));
}

TEST(H2Session, AHeaderListPastTheLimitGets431AndTheConnectionGoesOn) {
  H2ServerOptions options;
  options.limits.max_header_list_bytes = 1024;
  H2TestServer server(options);
  H2TestClient client(server.port());
  const std::int32_t big = client.request("GET", "/sse/a", {{"x-big", std::string(2000, 'b')}});
  ASSERT_TRUE(client.pump([&] { return client.stream(big).closed; }));
  EXPECT_EQ(client.stream(big).status, 431);
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 70; ++i) many.emplace_back("x-h" + std::to_string(i), "v");
  const std::int32_t crowded = client.request("GET", "/sse/a", many);
  ASSERT_TRUE(client.pump([&] { return client.stream(crowded).closed; }));
  EXPECT_EQ(client.stream(crowded).status, 431);
  const std::int32_t fine = client.request("GET", "/sse/a");
  ASSERT_TRUE(client.pump([&] { return client.stream(fine).status == 200; }));
  EXPECT_EQ(server.subscribers("a"), 1);
}

// A browser splits its cookies into crumbs over HTTP/2, a field each: they
// count as the one Cookie line they are over HTTP/1.1.
TEST(H2Session, CookieCrumbsCountAsOneHeaderField) {
  H2TestServer server(H2ServerOptions{});
  H2TestClient client(server.port());
  std::vector<std::pair<std::string, std::string>> crumbs;
  for (int i = 0; i < 70; ++i) crumbs.emplace_back("cookie", "c" + std::to_string(i) + "=v");
  const std::int32_t crumbled = client.request("GET", "/sse/a", crumbs);
  ASSERT_TRUE(client.pump([&] { return client.stream(crumbled).status != 0; }));
  EXPECT_EQ(client.stream(crumbled).status, 200);
  // Other fields past the limit still are.
  for (int i = 0; i < 64; ++i) crumbs.emplace_back("x-h" + std::to_string(i), "v");
  const std::int32_t crowded = client.request("GET", "/sse/a", crumbs);
  ASSERT_TRUE(client.pump([&] { return client.stream(crowded).closed; }));
  EXPECT_EQ(client.stream(crowded).status, 431);
}

TEST(H2Session, ABodyPastMaxBodyGets413) {
  H2ServerOptions options;
  options.limits.max_body = 1000;
  H2TestServer server(options);
  H2TestClient client(server.port());
  const std::int32_t fits = client.request("POST", "/pub/a", {}, std::string(1000, 'x'));
  const std::int32_t over = client.request("POST", "/pub/a", {}, std::string(5000, 'x'));
  ASSERT_TRUE(client.pump([&] { return client.stream(fits).closed && client.stream(over).closed; }));
  EXPECT_EQ(client.stream(fits).status, 200);
  EXPECT_EQ(client.stream(over).status, 413);
  EXPECT_FALSE(client.goaway());
  // The refused body's bytes gave their window back: the connection still
  // takes a full body.
  const std::int32_t again = client.request("POST", "/pub/a", {}, std::string(1000, 'y'));
  ASSERT_TRUE(client.pump([&] { return client.stream(again).closed; }));
  EXPECT_EQ(client.stream(again).status, 200);
}

// A stream whose window the client keeps shut holds its events in its own
// queue, where the budget refuses more (the policy's turn); the stream next
// to it on the same connection gets every event.
TEST(H2Session, AShutWindowHoldsOnlyItsOwnStream) {
  H2ServerOptions options;
  options.limits.stream_send = {.max_bytes = 4096, .max_frames = 64};
  H2TestServer server(options);
  H2TestClient client(server.port(), {.initial_window = 1024, .auto_window = false});
  const std::int32_t fast = client.request("GET", "/sse/fast");
  const std::int32_t slow = client.request("GET", "/sse/slow");
  ASSERT_TRUE(client.pump([&] { return server.subscribers("fast") == 1 && server.subscribers("slow") == 1; }));
  constexpr int kEvents = 400;
  std::size_t consumed = 0;
  for (int e = 0; e < kEvents; ++e) {
    const std::string event = "e" + std::to_string(e) + std::string(40, '.');
    server.publish("fast", event);
    server.publish("slow", event);
    // The client reads `fast` as it comes, and never `slow`.
    ASSERT_TRUE(client.pump([&] {
      const std::size_t got = client.stream(fast).body.size();
      client.consume(fast, got - consumed);
      consumed = got;
      return client.stream(fast).body.find("data: " + event + "\n\n") != std::string::npos;
    })) << "event " << e;
  }
  EXPECT_EQ(server.refusals("fast"), 0u);
  EXPECT_GT(server.refusals("slow"), 0u);
  EXPECT_LE(server.queued("slow"), 4096u);
  EXPECT_LE(client.stream(slow).body.size(), 1024u);
}

// Behind a socket the client does not read, two streams of one connection
// queue the same events; once it reads, they take turns (RFC 9218's
// incremental). Served oldest stream first, the second got no more than
// what went out before the socket filled until the first had all its
// events; on a busy connection its queue passed the budget and was cut off.
TEST(H2Session, StreamsOfOneConnectionTakeTurnsBehindAFullSocket) {
  H2ServerOptions options;
  options.limits.stream_send = {.max_bytes = 1 << 20, .max_frames = 4096};
  H2TestServer server(options);
  // The streams' windows hold neither back: only the socket does.
  H2TestClient client(server.port(), {.initial_window = 1 << 30, .receive_buffer = 4096});
  const std::int32_t first = client.request("GET", "/sse/turns");
  const std::int32_t second = client.request("GET", "/sse/turns");
  ASSERT_TRUE(client.pump([&] { return server.subscribers("turns") == 2; }));
  // 200 KiB for each stream: far more than the kernel holds for a reader
  // with a 4 KiB buffer, so most of it waits in the streams' queues.
  constexpr int kEvents = 200;
  for (int e = 0; e < kEvents; ++e) {
    ASSERT_EQ(server.publish("turns", "e" + std::to_string(e) + std::string(1000, '.')), 2);
  }
  const auto events = [&](std::int32_t stream) {
    const std::string& body = client.stream(stream).body;
    int n = 0;
    for (std::size_t at = 0; (at = body.find("data: e", at)) != std::string::npos; ++at) ++n;
    return n;
  };
  // Read as a slow reader does, 4 KiB at a time, until the first stream
  // has every event: the second then has most of its own, a few DATA
  // frames behind at most.
  while (events(first) < kEvents) ASSERT_TRUE(client.read_some(4096)) << events(first) << " on the first stream";
  EXPECT_GE(events(second), kEvents / 2);
  ASSERT_TRUE(client.pump([&] { return events(second) == kEvents; }));
}

// A latency gate's ask is one PING at a time, each numbered: asked again
// before the answer, the next PING (the one whose answer covers what was
// sent since) follows that answer. The client's count is read once the
// answers are in, or after an event published behind the PING arrived.
TEST(H2Session, AsksArePingsOneAtATimeEachAnsweredByNumber) {
  H2TestServer server({});
  H2TestClient client(server.port());
  ASSERT_TRUE(client.ok());
  const std::int32_t sse = client.request("GET", "/sse/news");
  ASSERT_TRUE(client.pump([&] { return client.stream(sse).body.find(": open") != std::string::npos; }));
  const int before = client.pings();
  EXPECT_EQ(server.ask_ack(), 1u);
  EXPECT_EQ(server.ask_ack(), 2u);  // the first is unanswered: the second follows its answer
  EXPECT_EQ(server.ask_ack(), 2u);  // asked again before it went: the same
  EXPECT_EQ(server.acks_asked(), 1u);
  EXPECT_EQ(server.acks_answered(), 0u);
  // The client's answer brings the second PING, and its answer the count.
  ASSERT_TRUE(client.pump([&] { return server.acks_answered() == 2; }));
  EXPECT_EQ(server.acks_asked(), 0u);
  EXPECT_EQ(client.pings(), before + 2);
  EXPECT_EQ(server.ask_ack(), 3u);
  ASSERT_EQ(server.publish("news", "e0"), 1);
  ASSERT_TRUE(client.pump([&] { return has_all(client.stream(sse).body, 1); }));
  EXPECT_EQ(client.pings(), before + 3);
}

TEST(H2Session, ABadPrefaceEndsTheConnection) {
  H2TestServer server({});
  H2TestClient client(server.port());
  client.write_raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(client.pump([&] { return client.eof(); }));
  ASSERT_TRUE(server.wait_until([&] { return server.closed_sessions().size() == 1; }, 10s));
  const std::vector<ClosedSession> closed = server.closed_sessions();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].end.library_error, NGHTTP2_ERR_BAD_CLIENT_MAGIC);
}

TEST(H2Session, AnIdleConnectionHoldsLittle) {
  H2TestServer server({});
  H2TestClient client(server.port());
  const std::int32_t sse = client.request("GET", "/sse/idle");
  ASSERT_TRUE(client.pump([&] { return client.stream(sse).status == 200; }));
  const std::vector<H2Stats> open = server.open_sessions();
  ASSERT_EQ(open.size(), 1u);
  std::printf("nghttp2 heap for a connection with one idle stream: %zu bytes (peak %zu)\n", open[0].library_bytes,
              open[0].library_peak);
  EXPECT_EQ(open[0].open_streams, 1u);
  EXPECT_EQ(open[0].pending_bytes, 0u);
  EXPECT_LT(open[0].library_bytes, 64u * 1024);
}

}  // namespace
}  // namespace sluice::transport::test
