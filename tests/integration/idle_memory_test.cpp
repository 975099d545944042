// What an idle connection keeps on the heap, measured in the server's own
// process (the clients here are raw sockets and stack buffers, so every
// byte counted is the server's). A connection that becomes a stream lets
// go of its request's input buffer, and a read that then finds nothing
// (most reads of an idle stream) takes none: before, it took a read chunk
// (16 KiB) that every idle stream then kept.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string_view>
#include <vector>

#include "alloc_counter.hpp"
#include "io/socket.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kWebSocket =
    "GET /ws/idle HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
constexpr std::string_view kSse = "GET /sse/idle HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// Sends `request` on a new connection; -1 when it could not.
int open_with(std::uint16_t port, std::string_view request) {
  const int fd = io::connect_tcp(io::Endpoint{"127.0.0.1", port});
  if (fd < 0) return -1;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads into a stack buffer until the response's head has come.
bool head_read(int fd) {
  char chunk[1024];
  std::size_t kept = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, chunk + kept, sizeof chunk - kept, 0);
    if (n <= 0) return false;
    kept += static_cast<std::size_t>(n);
    if (std::string_view(chunk, kept).find("\r\n\r\n") != std::string_view::npos) return true;
    if (kept == sizeof chunk) return false;
  }
  return false;
}

TEST(IdleConnections, EachHoldsUnder4KiBOfHeapAndNoReadBuffer) {
  constexpr int kEach = 200;
  RunningServer server(without_system_feed());
  // One of each first, so that what a loop makes once is not counted.
  for (const std::string_view request : {kWebSocket, kSse}) {
    const int fd = open_with(server.port(), request);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(head_read(fd));
    ::close(fd);
  }
  std::vector<int> fds;
  fds.reserve(2 * kEach);
  const std::int64_t before = live_heap_bytes();
  for (int i = 0; i < kEach; ++i) {
    for (const std::string_view request : {kWebSocket, kSse}) {
      fds.push_back(open_with(server.port(), request));
      ASSERT_GE(fds.back(), 0);
    }
  }
  for (const int fd : fds) ASSERT_TRUE(head_read(fd));
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (server.server().stats().streams != fds.size() && Clock::now() < deadline) {
  }
  ASSERT_EQ(server.server().stats().streams, fds.size());
  const std::int64_t per_connection = (live_heap_bytes() - before) / static_cast<std::int64_t>(fds.size());
  EXPECT_GT(per_connection, 0);
  EXPECT_LT(per_connection, 4096) << "heap bytes per idle stream";
  RecordProperty("heap_bytes_per_idle_stream", static_cast<int>(per_connection));
  for (const int fd : fds) ::close(fd);
}

}  // namespace
}  // namespace sluice::test
