// Delivering to SSE streams over HTTP/2 allocates nothing once warm: the
// hub hands each event to each stream's queue (the engine's), the streams'
// DATA frames point into the pool blocks, and one write carries them all.
// Counted with operator new over the whole process: the server, and the
// clients, which are raw sockets writing prebuilt frames and walking the
// server's frames in a stack buffer. nghttp2's own allocations come
// through operator new (H2Memory) and are counted too.
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
  std::string out;
  const std::size_t n = payload.size();
  out += {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n), static_cast<char>(type),
          static_cast<char>(flags)};
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((stream >> shift) & 0xff));
  return out + payload;
}

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// The preface, SETTINGS with the largest stream window, a connection
// window as large, and kStreams GET /sse/steady requests (HPACK: indexed
// :method GET and :scheme http, literal :path and :authority).
std::string open_streams() {
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  out += frame(4, 0, 0, std::string("\x00\x04", 2) + be32(0x7fffffff));
  out += frame(8, 0, 0, be32(0x7fff0000));
  const std::string block = std::string("\x82\x86\x04\x0b/sse/steady\x01\x09" "127.0.0.1");
  for (int i = 0; i < kStreams; ++i) out += frame(1, 0x05, static_cast<std::uint32_t>(1 + 2 * i), block);
  return out;
}

// Walks the server's frames, counting "\n\n" in DATA payloads (an SSE
// event's end) and acknowledging its SETTINGS, in a stack buffer.
class FrameWalker {
 public:
  explicit FrameWalker(int fd) : fd_(fd) {}

  bool read_events(std::size_t want) {
    char chunk[65536];
    while (events_ < want) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) return false;
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      for (ssize_t i = 0; i < n; ++i) take(chunk[i]);
    }
    events_ -= want;
    return true;
  }

 private:
  void take(char c) {
    if (header_at_ < 9) {
      header_[header_at_++] = static_cast<unsigned char>(c);
      if (header_at_ == 9) begin_frame();
      return;
    }
    // An event may be cut between two DATA frames of its stream, with
    // other streams' frames between them: the last byte is kept per stream.
    char& prev = prev_[stream_ % kStreamSlots];
    if (header_[3] == 0 && prev == '\n' && c == '\n') ++events_;
    prev = c;
    if (--left_ == 0) header_at_ = 0;
  }
  void begin_frame() {
    left_ = (std::size_t{header_[0]} << 16) | (std::size_t{header_[1]} << 8) | header_[2];
    stream_ = ((std::uint32_t{header_[5]} & 0x7f) << 24) | (std::uint32_t{header_[6]} << 16) |
              (std::uint32_t{header_[7]} << 8) | header_[8];
    if (header_[3] == 4 && (header_[4] & 1) == 0) {
      static constexpr char kAck[] = {0, 0, 0, 4, 1, 0, 0, 0, 0};
      (void)::send(fd_, kAck, sizeof kAck, MSG_NOSIGNAL);
    }
    if (left_ == 0) header_at_ = 0;
  }

  int fd_;
  unsigned char header_[9] = {};
  std::size_t header_at_ = 0;
  std::size_t left_ = 0;
  static constexpr std::uint32_t kStreamSlots = 2 * kStreams + 2;
  std::uint32_t stream_ = 0;
  char prev_[kStreamSlots] = {};
  std::size_t events_ = 0;
};

TEST(H2SteadyState, DeliveringToHttp2SseStreamsAllocatesNothing) {
  constexpr int kBatch = 50;
  constexpr int kRounds = 20;
  RunningServer server(without_system_feed());
  TestClient h2(server.port());
  h2.send(open_streams());
  FrameWalker walker(h2.fd());
  ASSERT_TRUE(walker.read_events(kStreams));  // each stream's retry: line: every stream has joined
  std::string batch;
  for (int i = 0; i < kBatch; ++i) {
    batch += "POST /pub/steady?event=tick HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 64\r\n\r\n" + std::string(64, 'e');
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
    return walker.read_events(static_cast<std::size_t>(kBatch) * kStreams);
  };
  const SteadyState run = run_steady_state(kRounds, round);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while delivering " << kBatch * kRounds << " events to "
                                 << kStreams << " SSE streams on one HTTP/2 connection";
}

}  // namespace
}  // namespace sluice::test
