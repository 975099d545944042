// policy.latest_window_frames over HTTP/2, through real sockets, a real
// server and nghttp2's client: a `latest` reader with a 4 KiB receive
// buffer reads its connection five times slower than frames are published
// on one of its two streams, SSE streams or WebSocket streams (extended
// CONNECT on /ws/{topic}). Every frame it reads is at most about two of
// its reads behind the newest published, the frames `latest` replaced are
// told in notices, exactly, and its other stream is not held behind the
// first. With the window off, what the stream's flow-control window lets
// into the kernel is read first, further behind with every read.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "h2_test_client.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;
using transport::test::H2ClientOptions;
using transport::test::H2TestClient;

constexpr std::size_t kBody = 1000;

server::Config latest_config(std::int64_t window_frames) {
  server::Config config;
  config.threads = 1;  // a publish is answered after its event was handed to the subscriber
  config.policy.fallback = Policy::latest;
  config.policy.latest_window_frames = window_frames;
  return config;
}

std::string body(int n) {
  char head[16];
  std::snprintf(head, sizeof head, "%06d", n);
  return std::string(head) + std::string(kBody - 6, 'p');
}

// One SSE stream's events as read so far: the frames' numbers in order and
// the loss it was told of.
struct Read {
  std::vector<int> numbers;
  std::uint64_t reported_lost = 0;
};

Read parse_sse(const std::string& stream_body) {
  Read got;
  std::size_t at = 0;
  for (std::size_t end; (end = stream_body.find("\n\n", at)) != std::string::npos; at = end + 2) {
    const std::string event = stream_body.substr(at, end - at);
    const std::size_t data = event.find("data: ");
    if (data == std::string::npos) continue;  // the window's probes, the stream's preamble
    if (event.find("event: sluice-dropped") != std::string::npos) {
      const std::size_t field = event.find("\"dropped\":");
      if (field != std::string::npos) got.reported_lost += std::strtoull(event.c_str() + field + 10, nullptr, 10);
    } else {
      got.numbers.push_back(std::atoi(event.c_str() + data + 6));
    }
  }
  return got;
}

// A WebSocket stream's messages as read so far (the server's frames are
// not masked): text frames carry a frame's number or a `dropped` notice;
// the window's probes are pings, which are not messages.
Read parse_ws(const std::string& stream_body) {
  Read got;
  const auto* bytes = reinterpret_cast<const unsigned char*>(stream_body.data());
  std::size_t at = 0;
  while (stream_body.size() - at >= 2) {
    const unsigned opcode = bytes[at] & 0x0fu;
    std::size_t length = bytes[at + 1] & 0x7fu;
    std::size_t head = 2;
    if (length == 126) {
      if (stream_body.size() - at < 4) break;
      length = (std::size_t{bytes[at + 2]} << 8) | bytes[at + 3];
      head = 4;
    } else if (length == 127) {
      if (stream_body.size() - at < 10) break;
      length = 0;
      for (std::size_t i = 0; i < 8; ++i) length = (length << 8) | bytes[at + 2 + i];
      head = 10;
    }
    if (stream_body.size() - at - head < length) break;  // not whole yet
    const std::string payload = stream_body.substr(at + head, length);
    at += head + length;
    if (opcode != 0x1) continue;
    if (payload.find("{\"sluice\":\"dropped\"") == 0) {
      const std::size_t field = payload.find("\"dropped\":");
      if (field != std::string::npos) got.reported_lost += std::strtoull(payload.c_str() + field + 10, nullptr, 10);
    } else {
      got.numbers.push_back(std::atoi(payload.c_str()));
    }
  }
  return got;
}

// The reader's two streams on one connection, open, and how to read them.
struct Streams {
  std::int32_t feed = 0;
  std::int32_t other = 0;
  Read (*parse)(const std::string&) = parse_sse;
};

Streams open_streams(H2TestClient& reader) {
  Streams streams{reader.request("GET", "/sse/feed"), reader.request("GET", "/sse/other")};
  EXPECT_TRUE(reader.pump([&] {
    return reader.stream(streams.feed).body.find("retry:") != std::string::npos &&
           reader.stream(streams.other).body.find("retry:") != std::string::npos;
  }));
  return streams;
}

Streams open_websockets(H2TestClient& reader) {
  EXPECT_TRUE(reader.pump([&] {
    return nghttp2_session_get_remote_settings(reader.session(), NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1;
  }));
  const std::vector<std::pair<std::string, std::string>> version{{"sec-websocket-version", "13"}};
  Streams streams{reader.request("CONNECT", "/ws/feed", version, "", true, "websocket"),
                  reader.request("CONNECT", "/ws/other", version, "", true, "websocket"), parse_ws};
  EXPECT_TRUE(reader.pump(
      [&] { return reader.stream(streams.feed).status == 200 && reader.stream(streams.other).status == 200; }));
  return streams;
}

// A reader five times slower than its publisher: each round publishes
// kPerRead frames, then the reader reads its socket 2 KiB at a time until
// one more frame of the feed is whole. Returns how far behind the newest
// published each frame read was, at worst.
constexpr int kPerRead = 5;
constexpr int kWindowRounds = 30;

int slow_rounds(RunningServer& server, H2TestClient& reader, const Streams& streams) {
  TestClient publisher(server.port());
  int newest = 0;
  int worst = 0;
  std::size_t seen = 0;
  for (int round = 0; round < kWindowRounds; ++round) {
    for (int i = 0; i < kPerRead; ++i) EXPECT_EQ(publish(publisher, "/pub/feed", body(++newest)), 200);
    Read got;
    while ((got = streams.parse(reader.stream(streams.feed).body)).numbers.size() == seen) {
      if (!reader.read_some(2048)) {
        ADD_FAILURE() << "no frame in round " << round;
        return worst;
      }
    }
    for (; seen < got.numbers.size(); ++seen) worst = std::max(worst, newest - got.numbers[seen]);
  }
  return worst;
}

// Two read intervals: the frame the window let in while the reader did not
// read, and those published since. (Without the window: 90 and more.)
constexpr int kMostBehind = 2 * kPerRead;

// The feed read slowly, then one event on the other stream, published
// behind the feed's held frames: the feed ends on the newest frame with
// every other frame told lost, and the other stream has its event.
void expect_slow_feed_bounded_and_other_stream_free(RunningServer& server, H2TestClient& reader,
                                                    const Streams& streams) {
  EXPECT_LE(slow_rounds(server, reader, streams), kMostBehind);
  // The other stream's one event, published behind the feed's held frames.
  TestClient publisher(server.port());
  EXPECT_EQ(publish(publisher, "/pub/other", body(1)), 200);
  Read got;
  ASSERT_TRUE(reader.pump([&] {
    got = streams.parse(reader.stream(streams.feed).body);
    return !got.numbers.empty() && got.numbers.back() == kWindowRounds * kPerRead &&
           got.numbers.size() + got.reported_lost == static_cast<std::size_t>(kWindowRounds * kPerRead) &&
           !streams.parse(reader.stream(streams.other).body).numbers.empty();
  })) << "read " << got.numbers.size() << ", told " << got.reported_lost;
  EXPECT_TRUE(std::is_sorted(got.numbers.begin(), got.numbers.end()));
  EXPECT_EQ(streams.parse(reader.stream(streams.other).body).numbers, std::vector<int>{1});
  EXPECT_EQ(server.server().stats().events_dropped, got.reported_lost);
  EXPECT_EQ(server.server().stats().latest_unbounded, 0u);
}

TEST(H2LatestWindow, ASlowReaderReadsFramesAtMostTwoOfItsReadsOldAndItsOtherStreamGoesOn) {
  RunningServer server(latest_config(1));
  H2TestClient reader(server.port(), H2ClientOptions{.receive_buffer = 4096});
  ASSERT_TRUE(reader.ok());
  expect_slow_feed_bounded_and_other_stream_free(server, reader, open_streams(reader));
}

TEST(H2LatestWindow, ASlowWebSocketReaderReadsFramesAtMostTwoOfItsReadsOldAndItsOtherStreamGoesOn) {
  RunningServer server(latest_config(1));
  H2TestClient reader(server.port(), H2ClientOptions{.receive_buffer = 4096});
  ASSERT_TRUE(reader.ok());
  expect_slow_feed_bounded_and_other_stream_free(server, reader, open_websockets(reader));
}

// Events that reach the loop together (pipelined publishes) all go to a
// stream whose reader has room: `latest` replaces only what a round of the
// engine left in the stream's queue. The window is off so that the
// engine, not the reader's pace, is what decides.
TEST(H2LatestWindow, AReaderWithRoomGetsEveryEventThatCameInTogether) {
  RunningServer server(latest_config(0));
  H2TestClient reader(server.port(), H2ClientOptions{});
  ASSERT_TRUE(reader.ok());
  const Streams streams = open_streams(reader);
  TestClient publisher(server.port());
  constexpr int kEvents = 50;
  std::string pipelined;
  for (int n = 1; n <= kEvents; ++n) pipelined += post_request("/pub/feed", body(n).substr(0, 16));
  publisher.send(pipelined);
  for (int n = 1; n <= kEvents; ++n) ASSERT_EQ(read_reply(publisher).status, 200);
  Read got;
  ASSERT_TRUE(reader.pump([&] {
    got = parse_sse(reader.stream(streams.feed).body);
    return got.numbers.size() + got.reported_lost >= static_cast<std::size_t>(kEvents);
  }));
  EXPECT_EQ(got.reported_lost, 0u);
  ASSERT_EQ(got.numbers.size(), static_cast<std::size_t>(kEvents));
  for (int n = 1; n <= kEvents; ++n) EXPECT_EQ(got.numbers[static_cast<std::size_t>(n - 1)], n);
  EXPECT_EQ(server.server().stats().events_dropped, 0u);
}

// A reader whose window moves in steps larger than its frames (the
// kernel's autotuned buffer, small frames) shows none of them unread. Every
// HTTP/2 client answers a PING once it has read the frames before it, so
// the gate asks with one: a reader that stops reading stops answering, and
// is held to the window by its answers. When it reads again it gets the
// frames of the window, then the newest, and a notice of the rest; without
// the answers it would read all 200 in order, each older than the last.
TEST(H2LatestWindow, AStalledReaderWhoseWindowCannotShowSmallFramesIsHeldByItsPingAnswers) {
  constexpr std::size_t kSmallBody = 32;
  const auto small_body = [](int n) { return body(n).substr(0, kSmallBody); };
  RunningServer server(latest_config(2));
  H2TestClient reader(server.port(), H2ClientOptions{});  // the kernel's default, autotuned buffer
  ASSERT_TRUE(reader.ok());
  tcp_info info{};
  socklen_t length = sizeof info;
  ASSERT_EQ(::getsockopt(reader.fd(), IPPROTO_TCP, TCP_INFO, &info, &length), 0);
  // The step the reader's window moves in, against a frame on the wire.
  if ((std::size_t{1} << info.tcpi_rcv_wscale) * 2 <= kSmallBody + 64) GTEST_SKIP() << "the window shows each frame";
  const Streams streams = open_streams(reader);
  TestClient publisher(server.port());
  // The first frame read while the reader keeps up; the second carries
  // the gate's first ask.
  ASSERT_EQ(publish(publisher, "/pub/feed", small_body(1)), 200);
  ASSERT_TRUE(reader.pump([&] { return parse_sse(reader.stream(streams.feed).body).numbers.size() == 1; }));
  ASSERT_EQ(publish(publisher, "/pub/feed", small_body(2)), 200);
  // The reader stops reading, and so answering. Not a wait for anything:
  // the stimulus. Its answer is late by at least this, whatever the load.
  std::this_thread::sleep_for(100ms);
  int published = 2;
  for (int i = 0; i < 200; ++i) ASSERT_EQ(publish(publisher, "/pub/feed", small_body(++published)), 200);
  Read got;
  ASSERT_TRUE(reader.pump([&] {
    got = parse_sse(reader.stream(streams.feed).body);
    return !got.numbers.empty() && got.numbers.back() == published &&
           got.numbers.size() + got.reported_lost == static_cast<std::size_t>(published);
  })) << "read " << got.numbers.size() << ", told " << got.reported_lost;
  EXPECT_TRUE(std::is_sorted(got.numbers.begin(), got.numbers.end()));
  // The two read before it stopped, the window's few, then the newest.
  EXPECT_LE(got.numbers.size(), 6u) << got.numbers.size();
  EXPECT_EQ(server.server().stats().events_dropped, got.reported_lost);
  EXPECT_EQ(server.server().stats().latest_loose, 0u);
}

// The window off, and the kernel let hold as much as a stream window
// lets in: what the gate's tests would see without it.
server::Config window_off_config() {
  server::Config config = latest_config(0);
  config.tcp_notsent_lowat = 64 * 1024;
  return config;
}

TEST(H2LatestWindow, WithTheWindowOffTheKernelHoldsWhatTheStreamWindowLetsIn) {
  RunningServer server(window_off_config());
  H2TestClient reader(server.port(), H2ClientOptions{.receive_buffer = 4096});
  ASSERT_TRUE(reader.ok());
  EXPECT_GT(slow_rounds(server, reader, open_streams(reader)), kMostBehind);
}

TEST(H2LatestWindow, WithTheWindowOffAWebSocketStreamIsReadFurtherBehind) {
  RunningServer server(window_off_config());
  H2TestClient reader(server.port(), H2ClientOptions{.receive_buffer = 4096});
  ASSERT_TRUE(reader.ok());
  EXPECT_GT(slow_rounds(server, reader, open_websockets(reader)), kMostBehind);
}

}  // namespace
}  // namespace sluice::test
