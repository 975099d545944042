// What an idle connection keeps on the heap, measured in the server's own
// process (the clients here are raw sockets and stack buffers, so every
// byte counted is the server's). A connection that becomes a stream lets
// go of what its request needed (the input buffer, the request phase's
// authorization round, the queue slots its handshake reply took), a read
// that finds nothing takes no buffer, and a stream quiet for
// conn::kQuietRest gives back the slots its traffic took since.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "conn/connection.hpp"
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

// The heap each of `count` idle streams opened with `request` holds, once
// the server counts them all: -1 when they could not be opened. They stay
// open (their sockets added to `fds`), so that the count stays theirs.
std::int64_t heap_per_idle_stream(RunningServer& server, std::string_view request, int count, std::vector<int>& fds) {
  const std::size_t already = fds.size();
  const std::uint64_t streams_before = server.server().stats().streams;
  const std::int64_t before = live_heap_bytes();
  for (int i = 0; i < count; ++i) {
    fds.push_back(open_with(server.port(), request));
    if (fds.back() < 0 || !head_read(fds.back())) return -1;
  }
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  const std::size_t opened = fds.size() - already;
  while (server.server().stats().streams != streams_before + opened && Clock::now() < deadline) {
    std::this_thread::yield();
  }
  if (server.server().stats().streams != streams_before + opened) return -1;
  return (live_heap_bytes() - before) / static_cast<std::int64_t>(opened);
}

// An idle stream holds its own state and nothing its traffic needed: no
// read buffer, no queue slots (its handshake reply's went back once
// written), no answers of the request phase's authorization round.
TEST(IdleConnections, EachHoldsUnder2KiBOfHeap) {
  RunningServer server(without_system_feed());
  std::vector<int> fds;
  // One of each first, so that what a loop makes once is not counted.
  ASSERT_GT(heap_per_idle_stream(server, kWebSocket, 1, fds), 0);
  ASSERT_GT(heap_per_idle_stream(server, kSse, 1, fds), 0);
  const std::int64_t websocket = heap_per_idle_stream(server, kWebSocket, 200, fds);
  const std::int64_t sse = heap_per_idle_stream(server, kSse, 200, fds);
  for (const int fd : fds) ::close(fd);
  EXPECT_GT(websocket, 0);
  EXPECT_GT(sse, 0);
  EXPECT_LE(websocket, 2048) << "heap bytes per idle WebSocket stream";
  EXPECT_LE(sse, 2048) << "heap bytes per idle SSE stream";
  RecordProperty("heap_bytes_per_idle_websocket", static_cast<int>(websocket));
  RecordProperty("heap_bytes_per_idle_sse", static_cast<int>(sse));
}

// Reads until `want` shows up in what the socket brings.
bool received(int fd, std::string_view want) {
  char chunk[1024];
  std::string got;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline && got.find(want) == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    got.append(chunk, static_cast<std::size_t>(n));
  }
  return got.find(want) != std::string::npos;
}

// A stream that had traffic holds its queue's slots (the handshake reply
// took the control lane's, an event the data lane's); quiet for
// conn::kQuietRest it gives them back at the next sweep, and takes them
// again for the next event, which arrives as any other.
TEST(IdleConnections, AQuietStreamGivesBackItsQueueSlotsAndTakesThemAgainForTheNextEvent) {
  constexpr int kEach = 100;
  RunningServer server(without_system_feed());
  std::vector<int> fds;
  const std::int64_t before = live_heap_bytes();
  for (int i = 0; i < kEach; ++i) {
    for (const std::string_view request : {kWebSocket, kSse}) {
      fds.push_back(open_with(server.port(), request));
      ASSERT_GE(fds.back(), 0);
    }
  }
  for (const int fd : fds) ASSERT_TRUE(head_read(fd));
  ASSERT_EQ(server.server().publish("idle", "first").status, server::PublishStatus::ok);
  for (const int fd : fds) ASSERT_TRUE(received(fd, "first"));
  const auto per_connection = [&] { return (live_heap_bytes() - before) / static_cast<std::int64_t>(fds.size()); };
  const std::int64_t busy = per_connection();
  // The data lane's ring is 64 slots of 32 bytes: every stream's goes
  // (the streams fell quiet a little apart, so one sweep may rest some and
  // the next the others).
  const auto deadline = Clock::now() + conn::kQuietRest + std::chrono::seconds(10);
  while (per_connection() > busy - 2000 && Clock::now() < deadline) std::this_thread::yield();
  const std::int64_t rested = per_connection();
  EXPECT_LE(rested, busy - 2000) << "heap bytes per stream: " << busy << " busy, " << rested << " after the rest";
  RecordProperty("heap_bytes_per_stream_busy", static_cast<int>(busy));
  RecordProperty("heap_bytes_per_stream_rested", static_cast<int>(rested));

  ASSERT_EQ(server.server().publish("idle", "second").status, server::PublishStatus::ok);
  for (const int fd : fds) EXPECT_TRUE(received(fd, "second"));
  for (const int fd : fds) ::close(fd);
}

}  // namespace
}  // namespace sluice::test
