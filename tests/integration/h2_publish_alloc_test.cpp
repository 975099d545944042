// Publishing over HTTP/2 (h2c POST /pub/{topic}) allocates nothing once
// warm: each POST takes one of the connection's fixed set of exchanges,
// its body goes into pool blocks, nghttp2's per-stream state comes from
// the connection's free lists (counted here too: it is taken through
// operator new), and the reply's DATA points into a pool block.
// Counted with operator new over the whole process: the server, a raw
// h2c publisher writing prebuilt frames (only the stream ids change, in
// place), and a raw HTTP/1.1 SSE subscriber that counts the events it
// gets in a stack buffer.
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "alloc_counter.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

constexpr int kBatch = 50;
constexpr int kRounds = 20;

std::string frame_head(std::size_t length, std::uint8_t type, std::uint8_t flags, std::uint32_t stream) {
  return {static_cast<char>(length >> 16), static_cast<char>(length >> 8), static_cast<char>(length),
          static_cast<char>(type),         static_cast<char>(flags),       static_cast<char>(stream >> 24),
          static_cast<char>(stream >> 16), static_cast<char>(stream >> 8), static_cast<char>(stream)};
}

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

void put_stream_id(std::string& bytes, std::size_t frame_at, std::uint32_t stream) {
  for (int i = 0; i < 4; ++i) bytes[frame_at + 5 + i] = static_cast<char>(stream >> (24 - 8 * i));
}

// kBatch POST /pub/steady requests, each a HEADERS frame (HPACK: indexed
// :method POST and :scheme http, literal :path and :authority) and one
// DATA frame with the body and END_STREAM. `heads` gets each frame's
// offset, for renumbering the streams.
std::string post_batch(std::size_t body_bytes, std::vector<std::size_t>& heads) {
  const std::string block = std::string("\x83\x86\x04\x0b/pub/steady\x01\x09" "127.0.0.1");
  std::string out;
  for (int i = 0; i < kBatch; ++i) {
    heads.push_back(out.size());
    out += frame_head(block.size(), 1, 0x04, 1) + block;
    heads.push_back(out.size());
    out += frame_head(body_bytes, 0, 0x01, 1) + std::string(body_bytes, 'e');
  }
  return out;
}

// Reads the server's frames in a stack buffer: acknowledges its SETTINGS
// and counts the replies that ended (DATA with END_STREAM) and those whose
// status was 200 (a header block starting with HPACK's indexed :status 200).
class ReplyWalker {
 public:
  explicit ReplyWalker(int fd) : fd_(fd) {}

  bool read_replies(int want, int& ok) {
    char chunk[65536];
    while (ended_ < want) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) return false;
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      for (ssize_t i = 0; i < n; ++i) take(static_cast<unsigned char>(chunk[i]));
    }
    ok = ok_;
    ended_ = ok_ = 0;
    return true;
  }

 private:
  void take(unsigned char c) {
    if (header_at_ < 9) {
      header_[header_at_++] = c;
      if (header_at_ == 9) begin_frame();
      return;
    }
    if (header_[3] == 1 && first_) ok_ += c == 0x88;
    first_ = false;
    if (--left_ == 0) end_frame();
  }
  void begin_frame() {
    left_ = (std::size_t{header_[0]} << 16) | (std::size_t{header_[1]} << 8) | header_[2];
    first_ = true;
    if (header_[3] == 4 && (header_[4] & 1) == 0) {
      static constexpr char kAck[] = {0, 0, 0, 4, 1, 0, 0, 0, 0};
      (void)::send(fd_, kAck, sizeof kAck, MSG_NOSIGNAL);
    }
    if (left_ == 0) end_frame();
  }
  void end_frame() {
    if (header_[3] == 0 && (header_[4] & 1) != 0) ++ended_;
    header_at_ = 0;
  }

  int fd_;
  unsigned char header_[9] = {};
  std::size_t header_at_ = 0;
  std::size_t left_ = 0;
  bool first_ = false;
  int ended_ = 0;
  int ok_ = 0;
};

// Counts SSE events ("\n\n") on an HTTP/1.1 stream in a stack buffer.
bool read_events(int fd, int want, char& prev) {
  char chunk[65536];
  int events = 0;
  while (events < want) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    for (ssize_t i = 0; i < n; ++i) {
      events += prev == '\n' && chunk[i] == '\n';
      prev = chunk[i];
    }
  }
  return events == want;
}

SteadyState publish_steadily(std::size_t body_bytes) {
  RunningServer server(without_system_feed());
  TestClient subscriber(server.port());
  subscriber.send("GET /sse/steady HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  if (!subscriber.read_until_contains("\n\n")) return {};  // the head, and the stream's retry: line
  TestClient h2(server.port());
  std::string opening = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  opening += frame_head(6, 4, 0, 0) + std::string("\x00\x04", 2) + be32(0x7fffffff);
  opening += frame_head(4, 8, 0, 0) + be32(0x7fff0000);
  h2.send(opening);
  std::vector<std::size_t> heads;
  std::string batch = post_batch(body_bytes, heads);
  ReplyWalker walker(h2.fd());
  std::uint32_t next_stream = 1;
  char prev = 0;
  const auto round = [&] {
    for (std::size_t i = 0; i < heads.size(); i += 2) {
      put_stream_id(batch, heads[i], next_stream);
      put_stream_id(batch, heads[i + 1], next_stream);
      next_stream += 2;
    }
    h2.send(batch);
    int ok = 0;
    return walker.read_replies(kBatch, ok) && ok == kBatch && read_events(subscriber.fd(), kBatch, prev);
  };
  return run_steady_state(kRounds, round);
}

TEST(H2PublishSteadyState, PublishingOverHttp2AllocatesNothing) {
  const SteadyState run = publish_steadily(64);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while publishing " << kBatch * kRounds
                                 << " 64-byte events over h2c POST";
}

// A body longer than one pool block is made one run of bytes in a buffer
// the connection keeps: that too settles.
TEST(H2PublishSteadyState, BodiesOverOnePoolBlockAllocateNothingOnceWarm) {
  const SteadyState run = publish_steadily(6000);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while publishing " << kBatch * kRounds
                                 << " 6000-byte events over h2c POST";
}

}  // namespace
}  // namespace sluice::test
