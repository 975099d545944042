// Every WebSocket route over HTTP/2 (extended CONNECT, h2c by prior
// knowledge, nghttp2's client API against an in-process server): the /ws
// JSON protocol on one stream (two topics, publishing, each op asked of
// the authorizer with the stream's own request), a publisher on
// /pub/{topic}, on_open and on_close per stream with a ConnectionRef that
// reaches its stream, and what bounds the new path: a message past
// ws.max_message (1009), partial messages of two streams together past
// the connection's memory (1009 for the one that did not fit), a malformed
// frame inside DATA (1002), a stream reset mid-message, after which the
// connection's other streams go on, and the WebSocket decoder's fuzz
// corpus replayed through HTTP/2 streams.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "h2_test_client.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::H2TestClient;
using Fields = std::vector<std::pair<std::string, std::string>>;

const Fields kWsVersion = {{"sec-websocket-version", "13"}};

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

struct Frame {
  std::uint8_t opcode = 0;
  std::string payload;
};

// The server's frames (unmasked, whole) in a stream's DATA so far.
std::vector<Frame> frames_of(const std::string& bytes) {
  std::vector<Frame> out;
  std::size_t at = 0;
  while (bytes.size() - at >= 2) {
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[at + i]); };
    std::uint64_t length = byte(1) & 0x7f;
    std::size_t head = 2;
    if (length == 126) {
      if (bytes.size() - at < 4) break;
      length = (std::uint64_t{byte(2)} << 8) | byte(3);
      head = 4;
    } else if (length == 127) {
      if (bytes.size() - at < 10) break;
      length = 0;
      for (std::size_t i = 0; i < 8; ++i) length = (length << 8) | byte(2 + i);
      head = 10;
    }
    if (bytes.size() - at - head < length) break;
    out.push_back({static_cast<std::uint8_t>(byte(0) & 0x0f), bytes.substr(at + head, length)});
    at += head + length;
  }
  return out;
}

// Whether `bytes` is nothing but whole server frames of known opcodes.
bool only_whole_frames(const std::string& bytes) {
  std::size_t parsed = 0;
  for (const Frame& f : frames_of(bytes)) {
    const bool known = f.opcode == ws::kText || f.opcode == ws::kBinary || f.opcode == ws::kClose ||
                       f.opcode == ws::kPing || f.opcode == ws::kPong;
    if (!known) return false;
    const std::size_t length = f.payload.size();
    parsed += (length < 126 ? 2 : length < 65536 ? 4 : 10) + length;
  }
  return parsed == bytes.size();
}

// The close code the server sent on the stream, 0 while none.
int close_code_of(const std::string& bytes) {
  for (const Frame& f : frames_of(bytes)) {
    if (f.opcode == ws::kClose && f.payload.size() >= 2) {
      return (static_cast<std::uint8_t>(f.payload[0]) << 8) | static_cast<std::uint8_t>(f.payload[1]);
    }
  }
  return 0;
}

std::string text(const std::string& payload, bool fin = true, std::uint8_t opcode = ws::kText) {
  return ws::wire({.opcode = opcode, .payload = payload, .fin = fin});
}

class H2WebSocketRoutes : public testing::Test {
 protected:
  void start(server::Config config = {}, const std::function<void(server::Server&)>& before_run = {}) {
    server = std::make_unique<RunningServer>(config, before_run);
    client = std::make_unique<H2TestClient>(server->port());
    ASSERT_TRUE(client->ok());
    ASSERT_TRUE(client->pump([&] {
      return nghttp2_session_get_remote_settings(client->session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
    }));
  }
  std::int32_t open(const std::string& path, const Fields& more = {}) {
    Fields fields = kWsVersion;
    fields.insert(fields.end(), more.begin(), more.end());
    const std::int32_t stream = client->request("CONNECT", path, fields, "", true, "websocket");
    EXPECT_TRUE(client->pump([&] { return client->stream(stream).status != 0; }));
    return stream;
  }
  const std::string& body(std::int32_t stream) { return client->stream(stream).body; }
  bool received(std::int32_t stream, const std::string& needle) {
    return client->pump([&] { return has(body(stream), needle); });
  }
  bool closed_with(std::int32_t stream, int code) {
    const bool seen = client->pump([&] { return close_code_of(body(stream)) != 0; });
    EXPECT_EQ(close_code_of(body(stream)), code) << body(stream);
    return seen && close_code_of(body(stream)) == code;
  }

  std::unique_ptr<RunningServer> server;
  std::unique_ptr<H2TestClient> client;
};

TEST_F(H2WebSocketRoutes, JsonStreamSubscribesToTwoTopicsAndPublishesOnOneStreamEachOpAuthorized) {
  std::mutex mutex;
  std::vector<std::string> asked;  // "action topic authorization-header"
  start({}, [&](server::Server& s) {
    s.authorize([&](const server::AuthRequest& r) {
      const std::lock_guard lock(mutex);
      asked.push_back(std::to_string(static_cast<int>(r.action)) + " " + std::string(r.topic) + " " +
                      std::string(r.headers.get("authorization")));
      if (r.topic == "secret") return server::AuthDecision::deny(403, "not yours");
      return server::AuthDecision::allow();
    });
  });
  const std::int32_t json = open("/ws", {{"authorization", "Bearer one"}});
  ASSERT_EQ(client->stream(json).status, 200);
  client->send(json,
               text(R"({"op":"subscribe","topic":"a","req":1})") + text(R"({"op":"subscribe","topic":"b","req":2})") +
                   text(R"({"op":"subscribe","topic":"secret","req":3})"),
               false);
  ASSERT_TRUE(received(json, R"("req":3)"));
  client->send(json, text(R"({"op":"publish","topic":"a","data":"to-a","req":4})") +
                         text(R"({"op":"publish","topic":"b","data":"to-b","req":5})"),
               false);
  ASSERT_TRUE(received(json, R"("data":"to-a")") && received(json, R"("data":"to-b")"));
  EXPECT_TRUE(has(body(json), R"({"op":"ack","req":1,"ok":true)")) << body(json);
  EXPECT_TRUE(has(body(json), R"({"op":"ack","req":2,"ok":true)")) << body(json);
  EXPECT_TRUE(has(body(json), R"({"op":"ack","req":3,"ok":false,"error":"403 not yours"})")) << body(json);
  EXPECT_TRUE(has(body(json), R"("topic":"a")") && has(body(json), R"("topic":"b")")) << body(json);
  // An HTTP publish on the same connection reaches the JSON stream too.
  const std::int32_t post = client->request("POST", "/pub/b", {}, "by-post");
  ASSERT_TRUE(received(json, R"("data":"by-post")"));
  EXPECT_EQ(client->stream(post).status, 200);
  const std::lock_guard lock(mutex);
  // Each op was asked (connect, three subscribes, two publishes), shown the
  // request that opened the stream.
  const std::vector<std::string> stream_checks = {"1 a Bearer one", "1 b Bearer one", "1 secret Bearer one",
                                                  "2 a Bearer one", "2 b Bearer one"};
  for (const std::string& check : stream_checks) {
    EXPECT_NE(std::find(asked.begin(), asked.end(), check), asked.end()) << check;
  }
}

TEST_F(H2WebSocketRoutes, PublisherStreamPublishesEveryMessageToItsTopic) {
  start();
  const std::int32_t reader = client->request("GET", "/sse/feed");
  ASSERT_TRUE(received(reader, "retry: "));
  const std::int32_t publisher = open("/pub/feed");
  ASSERT_EQ(client->stream(publisher).status, 200);
  client->send(publisher, text("first") + text("second", true, ws::kBinary), false);
  ASSERT_TRUE(received(reader, "data: first\n") && received(reader, "data: second\n"));
  EXPECT_TRUE(body(publisher).empty());  // a publisher is sent nothing back
  EXPECT_EQ(client->stream(open("/pub/bad%20name")).status, 400);
}

// Two ids would leave the stream to guess where to resume from, and a
// server's topic is no client's; the connection's other streams go on.
TEST_F(H2WebSocketRoutes, ATopicStreamNamingTwoLastEventIdsOrAServerTopicIsRefusedAndTheConnectionGoesOn) {
  start();
  const std::int32_t twice = open("/ws/two", {{"last-event-id", "a:1"}, {"last-event-id", "a:2"}});
  EXPECT_EQ(client->stream(twice).status, 400);
  EXPECT_TRUE(has(body(twice), "more than one Last-Event-ID")) << body(twice);
  EXPECT_EQ(client->stream(open("/ws/two", {{"last-event-id", "a:1"}})).status, 200);
  // The server's own topics are outside the clients' alphabet.
  const std::int32_t server_topic = open("/ws/%24sys");
  EXPECT_EQ(client->stream(server_topic).status, 400);
  EXPECT_TRUE(has(body(server_topic), "bad topic name")) << body(server_topic);
}

TEST_F(H2WebSocketRoutes, EachStreamIsAConnectionToTheApplication) {
  std::mutex mutex;
  std::vector<server::ConnectionRef> opened;
  std::vector<std::string> paths;
  std::atomic<int> closes{0};
  start({}, [&](server::Server& s) {
    s.on_open([&](server::ConnectionRef ref, std::string_view path) {
      const std::lock_guard lock(mutex);
      opened.push_back(ref);
      paths.emplace_back(path);
    });
    s.on_close([&](server::ConnectionRef) { ++closes; });
  });
  const std::int32_t first = open("/ws/hooks");
  const std::int32_t second = open("/ws");
  const auto refs = [&] {
    const std::lock_guard lock(mutex);
    return opened;
  };
  ASSERT_TRUE(client->pump([&] { return refs().size() == 2; }));
  const std::vector<server::ConnectionRef> both = refs();
  EXPECT_NE(both[0].id(), both[1].id());
  EXPECT_EQ(paths, (std::vector<std::string>{"/ws/hooks", "/ws"}));
  // A frame sent through a stream's ref reaches that stream alone.
  ASSERT_EQ(both[1].send_text("to-the-second"), server::SendStatus::ok);
  ASSERT_TRUE(received(second, "to-the-second"));
  EXPECT_FALSE(has(body(first), "to-the-second"));
  // A stream that ends is closed to the application; its neighbour is not.
  client->send(first, ws::wire({.opcode = ws::kClose, .payload = ws::close_payload(1000)}), false);
  ASSERT_TRUE(closed_with(first, 1000));
  client->send(first, "", true);  // the client's side of the stream ends too
  ASSERT_TRUE(client->pump([&] { return closes == 1 && both[0].closed(); }));
  EXPECT_FALSE(both[1].closed());
  ASSERT_EQ(both[1].send_text("still-here"), server::SendStatus::ok);
  ASSERT_TRUE(received(second, "still-here"));
}

TEST_F(H2WebSocketRoutes, AMessagePastMaxMessageIsClosed1009AndTheConnectionGoesOn) {
  server::Config config;
  config.ws.max_message = 4096;
  start(config);
  const std::int32_t big = open("/pub/big");
  // In fragments, so the decoder joins it before it finds it too long.
  client->send(big, text(std::string(3000, 'x'), false) + text(std::string(3000, 'y'), true, ws::kContinuation),
               false);
  ASSERT_TRUE(closed_with(big, 1009));
  const std::int32_t post = client->request("POST", "/pub/big", {}, "small");
  ASSERT_TRUE(client->pump([&] { return client->stream(post).closed; }));
  EXPECT_EQ(client->stream(post).status, 200);
  EXPECT_TRUE(has(client->stream(post).body, R"("subscribers":0)"));
}

TEST_F(H2WebSocketRoutes, PartialMessagesOfTwoStreamsPastTheConnectionsMemoryAreRefused1009) {
  // The decoder makes room for a frame's whole payload when its header
  // comes: a 100 KiB frame charges 100 KiB (a stream's buffer is charged
  // from its first byte over HTTP/2, its resting size included), which
  // fits 160 KiB once, beside what the connection's HTTP/2 state is
  // charged, but not twice.
  server::Config config;
  config.connection.memory_bytes = 160 << 10;
  start(config);
  const std::int32_t reader = client->request("GET", "/sse/joined");
  ASSERT_TRUE(received(reader, "retry: "));
  const std::int32_t first = open("/pub/joined");
  const std::int32_t second = open("/pub/joined");
  const std::string frame = text(std::string(100 << 10, 'a') + "-end");
  const std::size_t half = frame.size() / 2;
  client->send(first, frame.substr(0, half), false);
  ASSERT_TRUE(client->flush());
  client->send(second, frame.substr(0, half), false);
  ASSERT_TRUE(closed_with(second, 1009));
  EXPECT_TRUE(has(body(second), "limits.connection_bytes")) << body(second);
  // The first, charged first, completes and is published.
  client->send(first, frame.substr(half), false);
  ASSERT_TRUE(received(reader, "a-end\n")) << close_code_of(body(first));
  EXPECT_EQ(close_code_of(body(first)), 0);
}

// sluice_connection_memory_bytes: what every connection is charged now.
long connection_memory(std::uint16_t port) {
  const HttpReply reply = http_request(port, "GET", "/metrics", "");
  const std::string name = "\nsluice_connection_memory_bytes ";
  const std::size_t at = reply.body.find(name);
  return at == std::string::npos ? -1 : std::atol(reply.body.c_str() + at + name.size());
}

// A stream's buffers over HTTP/2 are charged from their first byte: after
// a message each keeps what it grew to, up to the resting size (16 KiB).
// Streams sent nothing more give it back at a sweep, so a client's idle
// streams hold nothing of what their messages made them grow.
TEST_F(H2WebSocketRoutes, IdleStreamsGiveBackWhatTheirMessagesMadeThemHold) {
  start();
  const std::int32_t reader = client->request("GET", "/sse/rest");
  ASSERT_TRUE(received(reader, "retry: "));
  std::vector<std::int32_t> publishers;
  for (int i = 0; i < 6; ++i) publishers.push_back(open("/pub/rest"));
  const long idle = connection_memory(server->port());
  ASSERT_GT(idle, 0);
  for (std::size_t i = 0; i < publishers.size(); ++i) {
    client->send(publishers[i], text(std::string(15000, 'm') + "-" + std::to_string(i)), false);
  }
  ASSERT_TRUE(received(reader, "-5\n"));
  const long used = connection_memory(server->port());
  EXPECT_GT(used, idle + 6 * 15000) << "each stream's buffer is charged";
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  long now = used;
  while (now > idle + 4096 && std::chrono::steady_clock::now() < deadline) {
    client->pump([] { return false; }, 100ms);
    now = connection_memory(server->port());
  }
  EXPECT_LE(now, idle + 4096) << "idle " << idle << ", after the messages " << used;
  for (const std::int32_t p : publishers) EXPECT_EQ(close_code_of(body(p)), 0);
}

TEST_F(H2WebSocketRoutes, AMalformedFrameInsideDataIsClosed1002) {
  start();
  const std::int32_t unmasked = open("/ws/bad");
  client->send(unmasked, ws::wire({.opcode = ws::kText, .payload = "plain", .masked = false}), false);
  ASSERT_TRUE(closed_with(unmasked, 1002));
  const std::int32_t reserved = open("/ws");
  client->send(reserved, ws::wire({.opcode = 0x3, .payload = "?"}), false);
  ASSERT_TRUE(closed_with(reserved, 1002));
  const std::int32_t bad_utf8 = open("/pub/bad");
  client->send(bad_utf8, text("\xc3\x28"), false);
  ASSERT_TRUE(closed_with(bad_utf8, 1007));
}

TEST_F(H2WebSocketRoutes, AStreamResetMidMessageLetsGoAndTheOthersGoOn) {
  start();
  const std::int32_t subscriber = open("/ws/reset");
  const std::int32_t publisher = open("/pub/reset");
  // Half a frame on each: the subscriber's own message, the publisher's.
  const std::string half = text(std::string(2000, 'h')).substr(0, 1000);
  client->send(subscriber, half, false);
  client->send(publisher, half, false);
  ASSERT_TRUE(client->flush());
  nghttp2_submit_rst_stream(client->session(), NGHTTP2_FLAG_NONE, subscriber, NGHTTP2_CANCEL);
  nghttp2_submit_rst_stream(client->session(), NGHTTP2_FLAG_NONE, publisher, NGHTTP2_CANCEL);
  ASSERT_TRUE(client->flush());
  // The reset subscriber follows the topic no more; a new stream on the
  // same connection subscribes and publishes.
  const std::int32_t after = open("/ws");
  client->send(after, text(R"({"op":"subscribe","topic":"reset","req":1})"), false);
  ASSERT_TRUE(received(after, R"("req":1,"ok":true)"));
  client->send(after, text(R"({"op":"publish","topic":"reset","data":"again","req":2})"), false);
  ASSERT_TRUE(received(after, R"("data":"again")"));
  const std::int32_t post = client->request("POST", "/pub/reset", {}, "count");
  ASSERT_TRUE(client->pump([&] { return client->stream(post).closed; }));
  EXPECT_TRUE(has(client->stream(post).body, R"("subscribers":1)")) << client->stream(post).body;
  EXPECT_FALSE(client->goaway());
}

// Every input the frame decoder's fuzzer kept, sent by a client on a /ws
// stream in two DATA frames split where the fuzzer split it: whatever the
// server answers on each stream is whole frames, the connection is never
// given up (no GOAWAY), and a stream opened after them all is served.
TEST_F(H2WebSocketRoutes, TheFrameFuzzCorpusThroughHttp2StreamsGetsWholeAnswers) {
  start();
  std::vector<std::string> inputs;
  for (const auto& entry : std::filesystem::directory_iterator(SLUICE_SOURCE_DIR "/fuzz/corpus/ws_frame_fuzz")) {
    std::ifstream file(entry.path(), std::ios::binary);
    inputs.emplace_back(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(inputs.size(), 50u);
  const std::int32_t control = open("/ws");
  constexpr std::size_t kBatch = 25;  // streams open at once, well under h2.max_concurrent_streams
  int req = 0;
  for (std::size_t first = 0; first < inputs.size(); first += kBatch) {
    std::vector<std::int32_t> streams;
    for (std::size_t i = first; i < std::min(first + kBatch, inputs.size()); ++i) {
      // Bytes 0 and 1 steer the fuzzer (role, limits, split point); the
      // rest is what a peer sent.
      const std::string& input = inputs[i];
      const std::string bytes = input.size() > 2 ? input.substr(2) : "";
      const std::size_t split = input.size() > 1 ? static_cast<std::uint8_t>(input[1]) % (bytes.size() + 1) : 0;
      const std::int32_t stream = client->request("CONNECT", "/ws", kWsVersion, "", true, "websocket");
      client->send(stream, bytes.substr(0, split), false);
      client->send(stream, bytes.substr(split), false);
      streams.push_back(stream);
    }
    // The server reads a connection's frames in order: once the control
    // stream's ack is back, every stream of the batch has been answered.
    const std::string ack = "\"req\":" + std::to_string(++req) + ",";
    client->send(control, text(R"({"op":"subscribe","topic":"corpus","req":)" + std::to_string(req) + "}"), false);
    ASSERT_TRUE(received(control, ack)) << "batch at " << first;
    for (const std::int32_t stream : streams) {
      EXPECT_TRUE(only_whole_frames(body(stream))) << "stream " << stream;
      nghttp2_submit_rst_stream(client->session(), NGHTTP2_FLAG_NONE, stream, NGHTTP2_CANCEL);
    }
  }
  EXPECT_FALSE(client->goaway());
  const std::int32_t after = open("/ws");
  client->send(after, text(R"({"op":"publish","topic":"corpus","data":"still-here","req":1})"), false);
  ASSERT_TRUE(received(control, R"("data":"still-here")"));
}

}  // namespace
}  // namespace sluice::test
