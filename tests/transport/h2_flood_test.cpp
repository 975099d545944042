// Floods against H2Session, sent with nghttp2's client API where it can
// make them (SETTINGS, PING, rapid reset) and as raw frames where it would
// not (CONTINUATION, empty DATA, window dribble). Each ends the flooding
// connection with GOAWAY(ENHANCE_YOUR_CALM), the session's memory stays
// bounded, and a subscriber on another connection goes on receiving.
// The last tests switch the meter off to show what Debian's nghttp2 1.52
// does on its own.
#include <gtest/gtest.h>

#include <string>

#include "h2_test_client.hpp"
#include "h2_test_server.hpp"

namespace sluice::transport::test {
namespace {

constexpr std::uint32_t kFramesPerSecond = 100;
constexpr int kFlood = 1000;
// What nghttp2 may hold for one flooding connection, at most.
constexpr std::size_t kSessionBytes = 256 * 1024;

H2ServerOptions flood_options(std::uint32_t frames_per_second = kFramesPerSecond,
                              std::size_t session_bytes = kSessionBytes) {
  H2ServerOptions options;
  options.limits.max_frames_per_second = frames_per_second;
  options.limits.max_session_bytes = session_bytes;
  return options;
}

// A subscriber on its own connection, to show the flood cost it nothing.
struct Bystander {
  explicit Bystander(H2TestServer& host) : server(host), client(host.port()) {
    stream = client.request("GET", "/sse/calm");
    EXPECT_TRUE(client.pump([&] { return server.subscribers("calm") == 1; }));
  }
  bool still_served() {
    server.publish("calm", "after the flood");
    return client.pump([&] { return client.stream(stream).body.find("data: after the flood") != std::string::npos; });
  }
  H2TestServer& server;
  H2TestClient client;
  std::int32_t stream = 0;
};

// The flooder's connection ended with GOAWAY(`code`) and bounded memory.
void expect_ended_with(H2TestServer& server, H2TestClient& flooder, std::uint32_t code) {
  EXPECT_TRUE(flooder.pump([&] { return flooder.eof(); })) << "the server did not close the connection";
  EXPECT_TRUE(flooder.goaway());
  EXPECT_EQ(flooder.goaway_code(), code);
  ASSERT_TRUE(server.wait_until([&] { return server.closed_sessions().size() == 1; }, 10s));
  const std::vector<ClosedSession> closed = server.closed_sessions();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_TRUE(closed[0].end.goaway_sent);
  EXPECT_EQ(closed[0].end.error_code, code);
  EXPECT_LE(closed[0].stats.library_peak, kSessionBytes);
  std::printf("flood ended: GOAWAY %u, %lu frames metered, %lu counted, nghttp2 peak %zu bytes\n", code,
              static_cast<unsigned long>(closed[0].stats.frames_metered),
              static_cast<unsigned long>(closed[0].stats.frames_counted), closed[0].stats.library_peak);
}

TEST(H2Flood, SettingsFloodGetsEnhanceYourCalm) {
  H2TestServer server(flood_options());
  Bystander bystander(server);
  H2TestClient flooder(server.port());
  for (int i = 0; i < kFlood && !flooder.eof(); ++i) {
    nghttp2_submit_settings(flooder.session(), NGHTTP2_FLAG_NONE, nullptr, 0);
    if (i % 50 == 0) flooder.flush();
  }
  expect_ended_with(server, flooder, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_TRUE(bystander.still_served());
}

TEST(H2Flood, PingFloodGetsEnhanceYourCalm) {
  H2TestServer server(flood_options());
  Bystander bystander(server);
  H2TestClient flooder(server.port());
  for (int i = 0; i < kFlood && !flooder.eof(); ++i) {
    nghttp2_submit_ping(flooder.session(), NGHTTP2_FLAG_NONE, nullptr);
    if (i % 50 == 0) flooder.flush();
  }
  expect_ended_with(server, flooder, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_TRUE(bystander.still_served());
}

// CVE-2023-44487: open a stream, reset it at once, again and again; the
// server starts work for each and the peer's concurrency limit never bites.
TEST(H2Flood, RapidResetGetsEnhanceYourCalm) {
  H2TestServer server(flood_options());
  Bystander bystander(server);
  H2TestClient flooder(server.port());
  for (int i = 0; i < kFlood && !flooder.eof(); ++i) {
    const std::int32_t id = flooder.request("GET", "/sse/reset");
    flooder.flush();
    nghttp2_submit_rst_stream(flooder.session(), NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    flooder.flush();
  }
  expect_ended_with(server, flooder, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_EQ(server.subscribers("reset"), 0);
  EXPECT_TRUE(bystander.still_served());
}

std::string preface() {
  return std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + h2_frame(NGHTTP2_SETTINGS, 0, 0, "");
}

// HPACK for GET /sse/cont http://127.0.0.1, minus the path, which follows
// in CONTINUATION frames one byte at a time.
std::string continuation_flood(int frames) {
  std::string out = h2_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_STREAM, 1, "\x82\x86\x41\x09" "127.0.0.1");
  for (int i = 0; i < frames; ++i) out += h2_frame(NGHTTP2_CONTINUATION, 0, 1, "\x00");  // empty literal... padding
  return out;
}

TEST(H2Flood, ContinuationFloodGetsEnhanceYourCalm) {
  H2TestServer server(flood_options());
  Bystander bystander(server);
  H2TestClient flooder(server.port(), {.raw = true});
  flooder.write_raw(preface() + continuation_flood(kFlood));
  expect_ended_with(server, flooder, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_TRUE(bystander.still_served());
}

TEST(H2Flood, EmptyDataFloodGetsEnhanceYourCalm) {
  H2TestServer server(flood_options());
  Bystander bystander(server);
  H2TestClient flooder(server.port(), {.raw = true});
  std::string flood = preface() + h2_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS, 1,
                                          "\x83\x86\x41\x09" "127.0.0.1" "\x04\x06/pub/e");
  for (int i = 0; i < kFlood; ++i) flood += h2_frame(NGHTTP2_DATA, 0, 1, "");
  flooder.write_raw(flood);
  expect_ended_with(server, flooder, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_TRUE(bystander.still_served());
}

std::string window_update(std::uint32_t stream, std::uint32_t increment) {
  std::string payload;
  for (int shift = 24; shift >= 0; shift -= 8) payload.push_back(static_cast<char>((increment >> shift) & 0xff));
  return h2_frame(NGHTTP2_WINDOW_UPDATE, 0, stream, payload);
}

// HPACK for GET /sse/open http://127.0.0.1.
const std::string kGetOpen = std::string("\x82\x86\x41\x09") + "127.0.0.1" + "\x04\x09/sse/open";

TEST(H2Flood, AWindowOpenedByteByByteGetsEnhanceYourCalmAndARealOneDoesNot) {
  H2TestServer server(flood_options());
  {
    H2TestClient generous(server.port(), {.raw = true});
    std::string updates = preface();
    for (int i = 0; i < kFlood; ++i) updates += window_update(0, 4096);
    updates += h2_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_END_STREAM, 1, kGetOpen);
    generous.write_raw(updates);
    EXPECT_TRUE(generous.pump([&] { return generous.stream(1).headers_frames > 0; }));
    EXPECT_FALSE(generous.goaway());
  }
  H2TestClient flooder(server.port(), {.raw = true});
  std::string dribble = preface();
  for (int i = 0; i < kFlood; ++i) dribble += window_update(0, 1);
  flooder.write_raw(dribble);
  EXPECT_TRUE(flooder.pump([&] { return flooder.eof(); }));
  EXPECT_EQ(flooder.goaway_code(), static_cast<std::uint32_t>(NGHTTP2_ENHANCE_YOUR_CALM));
}

// The client makes the server reset each stream it opens (a WINDOW_UPDATE
// past the stream's window is a flow-control error): as costly as rapid
// reset, though the client sends no RST_STREAM.
TEST(H2Flood, StreamsTheServerResetsForTheClientsErrorsGetEnhanceYourCalm) {
  H2TestServer server(flood_options());
  Bystander bystander(server);
  H2TestClient flooder(server.port(), {.raw = true});
  flooder.write_raw(preface());
  // In rounds of 20 streams, each round's resets awaited: never more
  // streams open at once than the limit allows, so no HEADERS counts.
  constexpr std::uint32_t kRound = 20;
  for (std::uint32_t first = 1; first < 2 * kFlood && !flooder.goaway() && !flooder.eof(); first += 2 * kRound) {
    std::string round;
    for (std::uint32_t stream = first; stream < first + 2 * kRound; stream += 2) {
      round += h2_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS, stream, kGetOpen);
      round += window_update(stream, 0x7fffffff);
    }
    flooder.write_raw(round);
    const std::uint32_t last = first + 2 * (kRound - 1);
    ASSERT_TRUE(flooder.pump([&] { return flooder.stream(last).closed || flooder.goaway(); }));
    if (!flooder.goaway()) {
      ASSERT_EQ(flooder.stream(last).error_code, std::uint32_t{NGHTTP2_FLOW_CONTROL_ERROR});
    }
  }
  expect_ended_with(server, flooder, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_TRUE(bystander.still_served());
}

void reset_rapidly(H2TestClient& flooder, int at_most) {
  for (int i = 0; i < at_most && !flooder.goaway() && !flooder.eof(); ++i) {
    const std::int32_t id = flooder.request("GET", "/sse/reset");
    flooder.flush();
    nghttp2_submit_rst_stream(flooder.session(), NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    flooder.flush();
  }
}

// What nghttp2 holds for a connection is capped: an allocation past the
// cap ends that connection with GOAWAY(ENHANCE_YOUR_CALM), made without
// nghttp2, whose state is not used again. Here the stream limit is set
// far too high and a peer opens stream after stream: the cap still holds.
TEST(H2Flood, TheSessionMemoryCapEndsTheConnectionWithAGoaway) {
  H2ServerOptions options = flood_options(1000000, 128 * 1024);
  options.limits.max_concurrent_streams = 10000;
  H2TestServer server(options);
  Bystander bystander(server);
  H2TestClient flooder(server.port(), {.raw = true});
  std::string burst = preface();
  const std::string get = std::string("\x82\x86\x41\x09") + "127.0.0.1" + "\x04\x09/sse/many";
  for (std::uint32_t id = 1; id < 4000; id += 2) {
    burst += h2_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_END_STREAM, id, get);
  }
  flooder.write_raw(burst);
  EXPECT_TRUE(flooder.pump([&] { return flooder.eof(); }));
  EXPECT_EQ(flooder.goaway_code(), static_cast<std::uint32_t>(NGHTTP2_ENHANCE_YOUR_CALM));
  ASSERT_TRUE(server.wait_until([&] { return server.closed_sessions().size() == 1; }, 10s));
  const std::vector<ClosedSession> closed = server.closed_sessions();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].end.library_error, NGHTTP2_ERR_NOMEM);
  EXPECT_LE(closed[0].stats.library_peak, 128u * 1024);
  EXPECT_EQ(server.subscribers("many"), 0);
  EXPECT_TRUE(bystander.still_served());
}

// With the meter and the cap out of the way: Debian's nghttp2 1.52
// (1.52.0-1+deb12u1 onwards) limits RST_STREAMs itself, a token bucket of
// 1000 and 33 a second, and ends the session with GOAWAY(INTERNAL_ERROR).
TEST(H2Flood, WithoutTheMeterDebiansNghttp2StillStopsRapidReset) {
  H2TestServer server(flood_options(1000000, std::size_t{256} << 20));
  H2TestClient flooder(server.port());
  reset_rapidly(flooder, 3 * kFlood);
  EXPECT_TRUE(flooder.pump([&] { return flooder.eof(); }));
  EXPECT_TRUE(flooder.goaway());
  EXPECT_EQ(flooder.goaway_code(), static_cast<std::uint32_t>(NGHTTP2_INTERNAL_ERROR));
  ASSERT_TRUE(server.wait_until([&] { return server.closed_sessions().size() == 1; }, 10s));
  const std::vector<ClosedSession> closed = server.closed_sessions();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].end.library_error, 0);
  std::printf("nghttp2's own limit: GOAWAY after %lu frames, peak %zu bytes\n",
              static_cast<unsigned long>(closed[0].stats.frames_metered), closed[0].stats.library_peak);
}

// Debian's 1.52.0-1+deb12u2 (CVE-2024-28182): at most 8 CONTINUATION
// frames after a HEADERS frame; nghttp2 gives up on the session and the
// GOAWAY is ours.
TEST(H2Flood, WithoutTheMeterDebiansNghttp2StillStopsContinuationFloods) {
  H2TestServer server(flood_options(1000000));
  H2TestClient flooder(server.port(), {.raw = true});
  flooder.write_raw(preface() + continuation_flood(100));
  expect_ended_with(server, flooder, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_EQ(server.closed_sessions()[0].end.library_error, NGHTTP2_ERR_TOO_MANY_CONTINUATIONS);
}

}  // namespace
}  // namespace sluice::transport::test
