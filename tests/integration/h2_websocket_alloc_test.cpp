// Delivering to WebSocket streams over HTTP/2 (extended CONNECT on
// /ws/{topic}) allocates nothing once warm: the hub hands each event's
// WebSocket frame to each stream's queue (the engine's), whose DATA frames
// point into the pool blocks. Counted with operator new over the whole
// process (nghttp2's allocations included): the server, an HTTP/1.1
// publisher writing prebuilt requests, and a raw h2c client that counts
// the events in a stack buffer.
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "alloc_counter.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

constexpr int kStreams = 10;

std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, const std::string& payload) {
  const std::size_t n = payload.size();
  std::string out = {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n),
                     static_cast<char>(type), static_cast<char>(flags)};
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((stream >> shift) & 0xff));
  return out + payload;
}

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// kStreams extended CONNECTs to /ws/steady (HPACK literals without
// indexing; :scheme http indexed), each left open.
std::string open_websockets() {
  const std::string nul(1, '\0');
  const std::string block = "\x02\x07" "CONNECT" + nul + "\x09:protocol\x09websocket" "\x86"
                            "\x04\x0a/ws/steady" "\x01\x09" "127.0.0.1" + nul +
                            "\x15sec-websocket-version\x02" "13";
  std::string out;
  for (int i = 0; i < kStreams; ++i) out += frame(1, 0x04, static_cast<std::uint32_t>(1 + 2 * i), block);
  return out;
}

// Walks the server's frames in a stack buffer: acknowledges its SETTINGS,
// counts response HEADERS and the '\n' that ends each event's payload in
// DATA frames.
class FrameWalker {
 public:
  explicit FrameWalker(int fd) : fd_(fd) {}

  bool read_settings() {
    while (!settings_) {
      if (!read_more()) return false;
    }
    return true;
  }

  bool read_until(std::size_t headers, std::size_t lines) {
    while (headers_ < headers || lines_ < lines) {
      if (!read_more()) return false;
    }
    headers_ -= headers;
    lines_ -= lines;
    return true;
  }
 private:
  bool read_more() {
    char chunk[65536];
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    for (ssize_t i = 0; i < n; ++i) take(static_cast<unsigned char>(chunk[i]));
    return true;
  }
  void take(unsigned char c) {
    if (header_at_ < 9) {
      header_[header_at_++] = c;
      if (header_at_ == 9) begin_frame();
      return;
    }
    if (header_[3] == 0 && c == '\n') ++lines_;
    if (--left_ == 0) header_at_ = 0;
  }
  void begin_frame() {
    left_ = (std::size_t{header_[0]} << 16) | (std::size_t{header_[1]} << 8) | header_[2];
    if (header_[3] == 1) ++headers_;
    if (header_[3] == 4 && (header_[4] & 1) == 0) {
      settings_ = true;
      static constexpr char kAck[] = {0, 0, 0, 4, 1, 0, 0, 0, 0};
      (void)::send(fd_, kAck, sizeof kAck, MSG_NOSIGNAL);
    }
    if (left_ == 0) header_at_ = 0;
  }

  int fd_;
  unsigned char header_[9] = {};
  std::size_t header_at_ = 0;
  std::size_t left_ = 0;
  std::size_t headers_ = 0;
  std::size_t lines_ = 0;
  bool settings_ = false;
};

TEST(H2WebSocketSteadyState, DeliveringToWebSocketsOverHttp2AllocatesNothing) {
  constexpr int kBatch = 50;
  constexpr int kRounds = 20;
  RunningServer server(without_system_feed());
  TestClient h2(server.port());
  std::string opening = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  opening += frame(4, 0, 0, std::string("\x00\x04", 2) + be32(0x7fffffff));
  opening += frame(8, 0, 0, be32(0x7fff0000));
  h2.send(opening);
  FrameWalker walker(h2.fd());
  // The server's SETTINGS (extended CONNECT among them) are acknowledged
  // before the CONNECTs go, as the protocol asks.
  ASSERT_TRUE(walker.read_settings());
  h2.send(open_websockets());
  ASSERT_TRUE(walker.read_until(kStreams, 0));  // every stream answered 200 has joined the topic
  std::string batch;
  for (int i = 0; i < kBatch; ++i) {
    batch += "POST /pub/steady HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 64\r\n\r\n" + std::string(63, 'e') + "\n";
  }
  TestClient publisher(server.port());
  const auto round = [&] {
    publisher.send(batch);
    std::size_t answered = 0;
    char chunk[65536];
    while (answered < static_cast<std::size_t>(kBatch)) {  // one JSON reply per POST, ending "}\n"
      pollfd p{publisher.fd(), POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) return false;
      const ssize_t n = ::recv(publisher.fd(), chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      for (ssize_t i = 1; i < n; ++i) answered += chunk[i - 1] == '}' && chunk[i] == '\n';
    }
    return walker.read_until(0, static_cast<std::size_t>(kBatch) * kStreams);
  };
  const SteadyState run = run_steady_state(kRounds, round);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while delivering " << kBatch * kRounds << " events to "
                                 << kStreams << " WebSocket streams on one HTTP/2 connection";
}

}  // namespace
}  // namespace sluice::test
