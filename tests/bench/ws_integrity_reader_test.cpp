// WsIntegrityReader against a fake server on 127.0.0.1 that sends chosen
// frames: intact, out of order, repeated, spliced from two publishers, cut
// short, from an unknown publisher, binary. Each must land in its count.
#include "ws_integrity_reader.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "clock.hpp"
#include "http_reply.hpp"
#include "net.hpp"
#include "buf/string_sink.hpp"
#include "proto/ws_encoder.hpp"
#include "proto/ws_handshake.hpp"
#include "stamp.hpp"

namespace sluice::bench {
namespace {

namespace ws = proto::ws;

std::string frame(ws::Opcode op, const std::string& payload) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(ws::encode_frame(op, true, false, std::span<const char>(payload.data(), payload.size()), sink));
  return out;
}

// Accepts one client on `listener`, answers its upgrade, sends `frames`, and
// keeps the connection until the client closes it.
void serve_once(int listener, const std::string& frames) {
  pollfd p{listener, POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  const int fd = io::accept_nonblocking(listener);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(io::set_nonblocking(fd, false), 0);
  std::string request;
  char chunk[4096];
  while (request.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    ASSERT_GT(n, 0);
    request.append(chunk, static_cast<std::size_t>(n));
  }
  char accept[ws::kAcceptSize + 1];
  ASSERT_TRUE(ws::compute_accept(header_value(request, "sec-websocket-key"), accept));
  const std::string head = std::string("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n") +
                           "Sec-WebSocket-Accept: " + accept + "\r\n\r\n";
  EXPECT_TRUE(write_all(fd, head + frames));
  while (::recv(fd, chunk, sizeof chunk, 0) > 0) {
  }
  ::close(fd);
}

TEST(WsIntegrityReader, SortsEveryMessageIntoItsCount) {
  std::string spliced = make_payload(64, 1, 0, 4);
  spliced.replace(40, 24, make_payload(64, 1, 1, 4).substr(40));
  const std::vector<std::string> frames = {
      frame(ws::Opcode::text, make_payload(64, 1, 0, 1)),
      frame(ws::Opcode::text, make_payload(64, 1, 0, 3)),
      frame(ws::Opcode::text, make_payload(64, 1, 0, 2)),   // reordered
      frame(ws::Opcode::text, make_payload(64, 1, 0, 2)),   // duplicate
      frame(ws::Opcode::text, spliced),                     // two publishers' bytes in one frame
      frame(ws::Opcode::text, make_payload(64, 1, 1, 5).substr(0, 63)),  // cut short
      frame(ws::Opcode::text, make_payload(64, 1, 5, 1)),   // no such publisher
      frame(ws::Opcode::binary, make_payload(64, 1, 1, 1)),  // not text
  };
  std::string all;
  for (const std::string& f : frames) all += f;
  const int listener = io::listen_tcp({.host = "127.0.0.1", .port = 0}, {});
  ASSERT_GE(listener, 0);
  std::thread server([&] { serve_once(listener, all); });
  WsIntegrityReader reader({.server = {.host = "127.0.0.1", .port = io::local_port(listener)}, .path = "/ws/t",
                            .size = 64, .publishers = 2, .per_publisher = 10});
  ASSERT_TRUE(reader.start()) << reader.error();
  // Bounded wait on the reader's own counter: it has no other signal.
  for (const std::uint64_t deadline = now_ns() + 10 * kNsPerSec; reader.delivered() < frames.size() && now_ns() < deadline;) {
    std::this_thread::yield();
  }
  reader.stop();
  server.join();
  ::close(listener);
  const IntegrityCounts& c = reader.counts();
  EXPECT_EQ(c.delivered, 8u);
  EXPECT_EQ(c.intact, 3u);
  EXPECT_EQ(c.reordered, 1u);
  EXPECT_EQ(c.duplicates, 1u);
  EXPECT_EQ(c.corrupted, 4u);
  EXPECT_EQ(reader.first_corrupt(), spliced);
  EXPECT_EQ(reader.error(), "");
}

}  // namespace
}  // namespace sluice::bench
