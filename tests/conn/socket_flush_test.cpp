// Gathered flushes against a real kernel (many frames per writev, a frame
// cut in the middle resumed, each released once sent): loopback TCP with a
// tiny send buffer, a reader thread draining the far end, and the sender
// flushing whenever poll() says the socket is writable.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <thread>

#include "conn/out_queue.hpp"
#include "conn/writer.hpp"
#include "io/socket.hpp"
#include "loopback_pair.hpp"

namespace sluice::conn {
namespace {

constexpr int kPollTimeoutMs = 30000;  // a safety net against a hang, not a timing

// Reads until `expected` bytes arrived or the stream ended.
std::string read_exactly(int fd, std::size_t expected) {
  std::string got(expected, '\0');
  std::size_t have = 0;
  while (have < expected) {
    const ssize_t n = ::recv(fd, got.data() + have, expected - have, 0);
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
  }
  got.resize(have);
  return got;
}

// Flushes until drained, waiting for writability after each blocked flush.
FlushResult flush_all(OutQueue& queue, SocketWriter& writer, int fd) {
  for (;;) {
    const FlushResult result = queue.flush(writer);
    if (result.status != FlushStatus::blocked) return result;
    pollfd writable{fd, POLLOUT, 0};
    if (::poll(&writable, 1, kPollTimeoutMs) != 1) return {FlushStatus::error, 0, 0, 0, ETIMEDOUT};
  }
}

buf::FrameRef frame_of(buf::Pool& pool, const std::string& bytes) {
  buf::FrameRef frame = buf::make_frame(pool, buf::Lane::data, bytes);
  EXPECT_TRUE(frame);
  return frame;
}

TEST(SocketFlush, AFrameFarBiggerThanTheSendBufferArrivesWhole) {
  constexpr std::size_t kSize = std::size_t{4} << 20;
  std::string payload(kSize, '\0');
  for (std::size_t i = 0; i < kSize; ++i) payload[i] = static_cast<char>((i * 131) ^ (i >> 12));
  buf::Pool pool({.block_count = kSize / 4096 + 4, .block_size = 4096, .reserve = 0});
  test::LoopbackPair pair(0);
  ASSERT_EQ(io::set_send_buffer(pair.sender, 4096), 0);
  OutQueue queue;
  ASSERT_EQ(queue.push_data(frame_of(pool, payload)), EnqueueStatus::ok);

  std::string received;
  std::thread reader([&] { received = read_exactly(pair.reader, kSize); });
  SocketWriter writer(pair.sender);
  const FlushResult result = flush_all(queue, writer, pair.sender);
  reader.join();

  EXPECT_EQ(result.status, FlushStatus::drained);
  EXPECT_EQ(pool.free_blocks(), pool.stats().block_count);
  EXPECT_GT(writer.calls(), 1u);
  ASSERT_EQ(received.size(), kSize);
  EXPECT_TRUE(received == payload);
  std::printf("4 MiB frame through SO_SNDBUF 4096: %llu sendmsg calls\n",
              static_cast<unsigned long long>(writer.calls()));
}

TEST(SocketFlush, ManySmallEventsShareEachSystemCall) {
  constexpr int kEvents = 1000;
  constexpr std::size_t kEventSize = 64;
  buf::Pool pool({.block_count = kEvents + 8, .block_size = 128, .reserve = 0});
  test::LoopbackPair pair(0);
  ASSERT_EQ(io::set_send_buffer(pair.sender, 4096), 0);
  OutQueue queue;
  std::string expected;
  for (int i = 0; i < kEvents; ++i) {
    std::string event = "data: event " + std::to_string(i) + " ";
    event.resize(kEventSize - 2, '.');
    event += "\n\n";
    expected += event;
    ASSERT_EQ(queue.push_data(frame_of(pool, event)), EnqueueStatus::ok);
  }

  std::string received;
  std::thread reader([&] { received = read_exactly(pair.reader, expected.size()); });
  SocketWriter writer(pair.sender);
  const FlushResult result = flush_all(queue, writer, pair.sender);
  reader.join();

  EXPECT_EQ(result.status, FlushStatus::drained);
  EXPECT_TRUE(received == expected);
  EXPECT_EQ(pool.free_blocks(), pool.stats().block_count);
  EXPECT_LT(writer.calls(), 100u);
  std::printf("%d events of %zu bytes, SO_SNDBUF 4096: %llu sendmsg calls, %.1f events per call\n", kEvents, kEventSize,
              static_cast<unsigned long long>(writer.calls()),
              static_cast<double>(kEvents) / static_cast<double>(writer.calls()));
}

TEST(SocketFlush, APeerThatHasGoneIsAnErrorNotSigpipe) {
  buf::Pool pool({.block_count = 64, .block_size = 1024, .reserve = 0});
  test::LoopbackPair pair(0);
  ::close(pair.reader);
  pair.reader = -1;
  OutQueue queue;
  SocketWriter writer(pair.sender);
  FlushResult result{FlushStatus::drained};
  // The first bytes may still be accepted; the peer's reset fails a later send.
  for (int i = 0; i < 100 && result.status != FlushStatus::error; ++i) {
    ASSERT_EQ(queue.push_data(frame_of(pool, std::string(1000, 'x'))), EnqueueStatus::ok);
    result = flush_all(queue, writer, pair.sender);
  }
  ASSERT_EQ(result.status, FlushStatus::error);
  EXPECT_TRUE(result.error == EPIPE || result.error == ECONNRESET) << result.error;
  queue.clear();
  EXPECT_EQ(pool.free_blocks(), pool.stats().block_count);
}

}  // namespace
}  // namespace sluice::conn
