// policy.latest_window_frames through real sockets and a real server: a
// `latest` reader with a small receive buffer stops reading while frames
// are published. What sluice lets into the kernel for it, measured in the
// kernel itself (SIOCOUTQ on the server's socket, found in this process,
// plus FIONREAD on the reader's), stays within the window; when the reader
// reads again it gets the frames of the window, then the newest published,
// and a notice of exactly the frames `latest` replaced in between. SSE and
// WebSocket; and with the window off, today's deep kernel queue.
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "conn/peer_backlog.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kBody = 1000;
constexpr int kPublished = 200;

server::Config latest_config(std::int64_t window_frames) {
  server::Config config;
  config.threads = 1;  // a publish is answered after its event was handed to the subscriber
  config.linger_timeout_ms = 500;
  config.policy.fallback = Policy::latest;
  config.policy.latest_window_frames = window_frames;
  return config;
}

// A body that says its own number: "000042" then filler.
std::string body(int n) {
  char head[16];
  std::snprintf(head, sizeof head, "%06d", n);
  return std::string(head) + std::string(kBody - 6, 'p');
}

std::uint64_t json_number(const std::string& json, const std::string& field) {
  const auto at = json.find("\"" + field + "\":");
  return at == std::string::npos ? 0 : std::strtoull(json.c_str() + at + field.size() + 3, nullptr, 10);
}

std::uint16_t port_of(const sockaddr_storage& address) {
  return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
}

// The server's end of the reader's connection: the socket of this process
// whose peer is the reader's local address.
int server_side_of(int reader_fd) {
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (::getsockname(reader_fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) return -1;
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return -1;
  int found = -1;
  while (const dirent* entry = ::readdir(fds)) {
    const int fd = std::atoi(entry->d_name);
    if (fd <= 2 || fd == reader_fd) continue;
    sockaddr_storage peer{};
    length = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) == 0 && peer.ss_family == AF_INET &&
        port_of(peer) == port_of(local)) {
      found = fd;
      break;
    }
  }
  ::closedir(fds);
  return found;
}

// Bytes written by sluice for this connection that its reader has not read:
// the server socket's send queue (unsent and unacknowledged) and what waits
// in the reader's receive buffer.
std::size_t in_kernel(int server_fd, int reader_fd) {
  int unsent = 0;
  int unread = 0;
  EXPECT_EQ(::ioctl(server_fd, SIOCOUTQ, &unsent), 0);
  EXPECT_EQ(::ioctl(reader_fd, FIONREAD, &unread), 0);
  return static_cast<std::size_t>(unsent) + static_cast<std::size_t>(unread);
}

// What a reader got once it read again: the frames' numbers, in order, and
// the loss it was told of.
struct Resumed {
  std::vector<int> numbers;
  std::uint64_t reported_lost = 0;
  [[nodiscard]] bool complete() const {
    return !numbers.empty() && numbers.back() == kPublished &&
           numbers.size() + reported_lost == static_cast<std::size_t>(kPublished);
  }
};

// Publishes frames 1..kPublished; after each, the bytes in the kernel for
// the reader. Returns the most seen.
std::size_t publish_all(std::uint16_t port, int server_fd, int reader_fd, const char* path) {
  TestClient publisher(port);
  std::size_t most = 0;
  for (int n = 1; n <= kPublished; ++n) {
    EXPECT_EQ(publish(publisher, path, body(n)), 200);
    most = std::max(most, in_kernel(server_fd, reader_fd));
  }
  return most;
}

// Each frame as it leaves: 1,000 bytes of data, its id and framing (SSE)
// or its header (WebSocket); a notice and the probes ride along.
constexpr std::size_t kFrameOnWire = kBody + 64;
constexpr std::size_t kAlong = 512;
// What the estimate cannot see: a receive buffer offers less window than
// it has room (the kernel's rcv_ssthresh), so the first bytes waiting in it
// leave the window whole; and while a fresh connection's first segments
// arrive, the window it offers grows, which the estimate takes for room
// the reader made. With a 4 KiB buffer that is up to two of these frames
// on top of the window, and under the sanitizers (loop turns several times
// slower, so the window grows more between looks) part of a third; without
// the window the kernel takes more than eight.
constexpr std::size_t kBlindFrames = 3;

void expect_window_then_newest(const Resumed& got, std::size_t window) {
  ASSERT_TRUE(got.complete()) << "read " << got.numbers.size() << ", told " << got.reported_lost;
  EXPECT_TRUE(std::is_sorted(got.numbers.begin(), got.numbers.end()));
  // The few frames let into the kernel while the reader did not read, then
  // the newest: never the backlog of a deep kernel queue.
  ASSERT_LE(got.numbers.size(), window + kBlindFrames + 1);
  EXPECT_EQ(got.numbers.back(), kPublished);
}

Resumed read_sse(SseSubscriber& reader) {
  Resumed got;
  reader.client().read_until([&](const std::string&) {
    reader.parse_buffered();
    got = {};
    for (const auto& e : reader.events()) {
      if (e.type == "sluice-dropped") {
        got.reported_lost += json_number(e.data, "dropped");
      } else {
        got.numbers.push_back(std::atoi(e.data.substr(0, 6).c_str()));
      }
    }
    return got.complete();
  });
  return got;
}

TEST(LatestWindow, AStalledSseReaderHoldsTheWindowInTheKernelAndThenReadsTheNewest) {
  RunningServer server(latest_config(2));
  SseSubscriber reader(server.port(), "/sse/feed", 4096);
  ASSERT_TRUE(reader.opened());
  const int server_fd = server_side_of(reader.client().fd());
  ASSERT_GE(server_fd, 0);
  const std::size_t most = publish_all(server.port(), server_fd, reader.client().fd(), "/pub/feed");
  EXPECT_LE(most, (2 + kBlindFrames) * kFrameOnWire + kAlong);
  const Resumed got = read_sse(reader);
  expect_window_then_newest(got, 2);
  EXPECT_EQ(server.server().stats().events_dropped, got.reported_lost);
  EXPECT_EQ(server.server().stats().latest_unbounded, 0u);
}

// Lines of `bytes` that start with `line_start` (after a newline).
std::size_t count_lines(const std::string& bytes, std::string_view line_start) {
  std::size_t lines = 0;
  for (std::size_t at = bytes.find(line_start); at != std::string::npos; at = bytes.find(line_start, at + 1)) ++lines;
  return lines;
}

// What the reader's kernel holds for it, left there.
std::string held_for(int fd) {
  int unread = 0;
  EXPECT_EQ(::ioctl(fd, FIONREAD, &unread), 0);
  std::string held(static_cast<std::size_t>(unread), '\0');
  EXPECT_EQ(::recv(fd, held.data(), held.size(), MSG_PEEK), unread);
  return held;
}

// A reader that stops while frames wait for it gets padding, not frames:
// once its window's edge has stood still for a rest, SSE comment lines go
// in, more each time (until its window would close; the test stops at 2
// KiB of them). When it reads again it gets
// the frames let in before, the padding its parser skips, and the newest.
TEST(LatestWindow, AStoppedSseReadersWindowFillsWithPaddingNotFrames) {
  constexpr int kRead = 20;
  RunningServer server(latest_config(2));
  SseSubscriber reader(server.port(), "/sse/feed");
  ASSERT_TRUE(reader.opened());
  TestClient publisher(server.port());
  // It reads the first frames as they come, then stops.
  for (int n = 1; n <= kRead; ++n) {
    ASSERT_EQ(publish(publisher, "/pub/feed", body(n)), 200);
    ASSERT_TRUE(reader.wait_for(static_cast<std::size_t>(n)));
  }
  // Frames keep coming until its kernel's buffer holds 2 KiB of comment
  // lines or more.
  int last = kRead;
  std::string held;
  for (const auto deadline = std::chrono::steady_clock::now() + 10s;
       count_lines(held, "\n:") < 2048 / 125 && std::chrono::steady_clock::now() < deadline; ::poll(nullptr, 0, 10)) {
    ASSERT_EQ(publish(publisher, "/pub/feed", body(++last)), 200);
    held = held_for(reader.client().fd());
  }
  ASSERT_GE(count_lines(held, "\n:"), 2048u / 125) << held.size() << " bytes held";
  const std::size_t frames_held = count_lines(held, "\ndata: ");
  // Every byte of it is counted.
  EXPECT_GE(server.server().stats().latest_padding_bytes, 125 * count_lines(held, "\n:"));
  // The frames let in before it stopped, the padding, then the newest.
  std::vector<int> numbers;
  EXPECT_TRUE(reader.client().read_until([&](const std::string&) {
    reader.parse_buffered();
    numbers.clear();
    for (const auto& e : reader.events()) {
      if (e.type != "sluice-dropped") numbers.push_back(std::atoi(e.data.substr(0, 6).c_str()));
    }
    return !numbers.empty() && numbers.back() == last;
  }));
  EXPECT_TRUE(std::is_sorted(numbers.begin(), numbers.end()));
  // The newest, and perhaps a frame on its way at the last look.
  EXPECT_LE(numbers.size(), kRead + frames_held + 2);
}

// A reader that reads the first 20 frames and stops, while frames keep
// coming every 10 ms: what its kernel holds once `done(held)` or `until`.
template <class Done>
std::string held_once_stopped(RunningServer& server, std::chrono::steady_clock::time_point until, Done done) {
  SseSubscriber reader(server.port(), "/sse/feed");
  EXPECT_TRUE(reader.opened());
  TestClient publisher(server.port());
  int last = 0;
  for (; last < 20; ++last) {
    EXPECT_EQ(publish(publisher, "/pub/feed", body(last + 1)), 200);
    if (!reader.wait_for(static_cast<std::size_t>(last + 1))) return "";
  }
  std::string held;
  for (; !done(held) && std::chrono::steady_clock::now() < until; ::poll(nullptr, 0, 10)) {
    EXPECT_EQ(publish(publisher, "/pub/feed", body(++last)), 200);
    held = held_for(reader.client().fd());
  }
  return held;
}

// With policy.latest_padding_bytes_per_s = 0 no padding goes. A stopped
// reader with the default budget is sent its first padding (at most 10 s:
// a bound against a hang); one without a budget, stopped for twice as
// long (four rests at least), gets none.
TEST(LatestWindow, WithoutAPaddingBudgetAStoppedReaderIsSentNone) {
  using std::chrono::steady_clock;
  const auto padded = [](const std::string& held) { return count_lines(held, "\n:") > 0; };
  const auto stopped = steady_clock::now();
  {
    RunningServer server(latest_config(2));
    ASSERT_TRUE(padded(held_once_stopped(server, stopped + 10s, padded))) << "the default sent no padding";
  }
  const auto took = steady_clock::now() - stopped;
  server::Config config = latest_config(2);
  config.policy.latest_padding_bytes_per_s = 0;
  RunningServer server(config);
  const auto never = [](const std::string&) { return false; };
  const auto until = steady_clock::now() + std::max<steady_clock::duration>(2 * took, 4 * conn::PeerBacklog::kRest);
  const std::string held = held_once_stopped(server, until, never);
  EXPECT_EQ(count_lines(held, "\n:"), 0u) << held.size() << " bytes held";
  EXPECT_EQ(server.server().stats().latest_padding_bytes, 0u);
  EXPECT_EQ(server.server().stats().latest_unbounded, 0u);
}

// A reader that takes a few KiB every 500 ms (an application that reads a
// little and sleeps; curl --limit-rate reads so) through an autotuned
// buffer, frames published every 10 ms. Its window's edge stands still
// between its reads, as a stopped reader's does; padded every time, at
// the rate a stopped reader may be, it read more padding than frames
// (6 frames and 13 KB of padding in 4 s). What it reads once it has shown
// its pace is mostly frames: at least one every other read, and more
// frame bytes than padding.
TEST(LatestWindow, AReaderThatReadsALittleAndSleepsReadsFramesNotPadding) {
  constexpr std::size_t kRead = 4096;
  constexpr int kReads = 16;
  RunningServer server(latest_config(2));
  SseSubscriber reader(server.port(), "/sse/feed");
  ASSERT_TRUE(reader.opened());
  std::atomic<bool> done{false};
  std::thread publishing([&] {
    TestClient publisher(server.port());
    for (int n = 1; n <= 2000 && !done.load(); ++n) {
      if (publish(publisher, "/pub/feed", body(n)) != 200) break;
      ::poll(nullptr, 0, 10);
    }
  });
  std::string first_half;
  std::string second_half;
  for (int i = 0; i < kReads; ++i) {
    // The reader's pace: the stimulus, not a wait for the server.
    std::this_thread::sleep_for(500ms);
    char bytes[kRead];
    const ssize_t n = ::recv(reader.client().fd(), bytes, sizeof bytes, MSG_DONTWAIT);
    if (n > 0) (i < kReads / 2 ? first_half : second_half).append(bytes, static_cast<std::size_t>(n));
  }
  done = true;
  publishing.join();
  std::size_t frames = 0;
  std::size_t frame_bytes = 0;
  std::size_t padding_bytes = 0;
  for (std::size_t at = 0, end; (end = second_half.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string_view line(second_half.data() + at, end - at);
    if (line.starts_with(":")) padding_bytes += line.size() + 1;
    if (line.starts_with("data: ") && !line.starts_with("data: {")) {
      ++frames;
      frame_bytes += line.size() + 1;
    }
  }
  EXPECT_GE(frames, static_cast<std::size_t>(kReads / 4)) << padding_bytes << " bytes of padding";
  EXPECT_LT(padding_bytes, frame_bytes) << frames << " frames";
}

TEST(LatestWindow, OneFrameIsAWindowToo) {
  RunningServer server(latest_config(1));
  SseSubscriber reader(server.port(), "/sse/feed", 4096);
  ASSERT_TRUE(reader.opened());
  const int server_fd = server_side_of(reader.client().fd());
  ASSERT_GE(server_fd, 0);
  const std::size_t most = publish_all(server.port(), server_fd, reader.client().fd(), "/pub/feed");
  EXPECT_LE(most, (1 + kBlindFrames) * kFrameOnWire + kAlong);
  expect_window_then_newest(read_sse(reader), 1);
}

TEST(LatestWindow, AStalledWebSocketReaderHoldsTheWindowInTheKernelAndThenReadsTheNewest) {
  RunningServer server(latest_config(2));
  ws::WsTestClient reader(server.port(), 4096);
  ASSERT_TRUE(reader.open("/ws/feed"));
  const int server_fd = server_side_of(reader.socket().fd());
  ASSERT_GE(server_fd, 0);
  const std::size_t most = publish_all(server.port(), server_fd, reader.socket().fd(), "/pub/feed");
  EXPECT_LE(most, (2 + kBlindFrames) * kFrameOnWire + kAlong);
  Resumed got;
  while (!got.complete()) {
    const std::optional<ws::ServerFrame> frame = reader.read_frame();
    ASSERT_TRUE(frame.has_value()) << "read " << got.numbers.size() << ", told " << got.reported_lost;
    if (frame->opcode != 0x1 && frame->opcode != 0x2) continue;  // the window's pings
    if (frame->payload.starts_with("{\"sluice\":")) {
      got.reported_lost += json_number(frame->payload, "dropped");
    } else {
      got.numbers.push_back(std::atoi(frame->payload.substr(0, 6).c_str()));
    }
  }
  expect_window_then_newest(got, 2);
  EXPECT_EQ(server.server().stats().events_dropped, got.reported_lost);
}

// Small frames to a reader whose buffer autotunes: its window moves in
// steps larger than the frames (1 KiB, with Linux's default limits) and
// shows none of them unread, so the gate learns what the reader has read
// only from its answers to the gate's pings. A reader that leaves the ask
// unanswered past the grace period is behind: nothing more enters the
// kernel however much is published, and `latest` replaces it in sluice's
// queue. When the reader reads again, answering the ping, it gets the two
// frames of the window, then the newest, and is told of every frame
// replaced.
TEST(LatestWindow, AStalledWebSocketReaderWhoseWindowCannotShowSmallFramesIsHeldByItsAnswers) {
  constexpr std::size_t kSmallBody = 32;
  constexpr std::size_t kSmallOnWire = kSmallBody + 2;  // a WebSocket header of two bytes
  const auto small_body = [](int n) { return body(n).substr(0, kSmallBody); };
  RunningServer server(latest_config(2));
  ws::WsTestClient reader(server.port(), 0);  // the kernel's default, autotuned buffer
  ASSERT_TRUE(reader.open("/ws/feed"));
  const int fd = reader.socket().fd();
  const int server_fd = server_side_of(fd);
  ASSERT_GE(server_fd, 0);
  tcp_info info{};
  socklen_t length = sizeof info;
  ASSERT_EQ(::getsockopt(server_fd, IPPROTO_TCP, TCP_INFO, &info, &length), 0);
  if ((std::size_t{1} << info.tcpi_snd_wscale) <= kSmallOnWire) GTEST_SKIP() << "the window shows each frame";
  TestClient publisher(server.port());
  // The second frame carries the gate's ask about the first. Synchronised on
  // the ask reaching the reader's buffer, which the reader only peeks at.
  ASSERT_EQ(publish(publisher, "/pub/feed", small_body(1)), 200);
  ASSERT_EQ(publish(publisher, "/pub/feed", small_body(2)), 200);
  const std::string_view ask = "sluice-read";
  char peeked[4096];
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    const ssize_t n = ::recv(fd, peeked, sizeof peeked, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0 && std::string_view(peeked, static_cast<std::size_t>(n)).find(ask) != std::string_view::npos) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no ask reached the reader";
    ::poll(nullptr, 0, 1);
  }
  // The reader takes its time: not a wait for anything, the stimulus. Its
  // answer is late by at least this, whatever the machine's load.
  std::this_thread::sleep_for(100ms);
  const std::size_t before = in_kernel(server_fd, fd);
  int published = 2;
  std::size_t most = before;
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(publish(publisher, "/pub/feed", small_body(++published)), 200);
    most = std::max(most, in_kernel(server_fd, fd));
  }
  // Without the answers each of these would enter: 200 frames, 6.8 KB.
  EXPECT_LE(most, before + kAlong);
  std::vector<int> numbers;
  std::uint64_t reported_lost = 0;
  while (numbers.empty() || numbers.back() != published ||
         numbers.size() + reported_lost != static_cast<std::size_t>(published)) {
    const std::optional<ws::ServerFrame> frame = reader.read_message();  // answers the pings
    ASSERT_TRUE(frame.has_value()) << "read " << numbers.size() << ", told " << reported_lost;
    if (frame->payload.starts_with("{\"sluice\":")) {
      reported_lost += json_number(frame->payload, "dropped");
    } else {
      numbers.push_back(std::atoi(frame->payload.substr(0, 6).c_str()));
    }
  }
  // The window's two, then the newest.
  EXPECT_EQ(numbers, (std::vector<int>{1, 2, published}));
  EXPECT_EQ(reported_lost, static_cast<std::uint64_t>(published - 3));
  EXPECT_EQ(server.server().stats().events_dropped, reported_lost);
}

// An SSE reader cannot be asked what it has read: with frames its window
// cannot show, the stream is held only to the window's rounding, and that
// is counted, once for the stream. A WebSocket reader beside it is asked,
// and is not counted.
TEST(LatestWindow, AnSseStreamWhoseWindowCannotShowItsFramesIsCounted) {
  RunningServer server(latest_config(1));
  SseSubscriber sse(server.port(), "/sse/feed");  // the kernel's default, autotuned buffer
  ASSERT_TRUE(sse.opened());
  ws::WsTestClient ws_reader(server.port(), 0);
  ASSERT_TRUE(ws_reader.open("/ws/feed"));
  const int server_fd = server_side_of(sse.client().fd());
  ASSERT_GE(server_fd, 0);
  tcp_info info{};
  socklen_t length = sizeof info;
  ASSERT_EQ(::getsockopt(server_fd, IPPROTO_TCP, TCP_INFO, &info, &length), 0);
  constexpr std::size_t kSmallBody = 32;
  if ((std::size_t{1} << info.tcpi_snd_wscale) * 2 <= kSmallBody + 64) GTEST_SKIP() << "the window shows each frame";
  TestClient publisher(server.port());
  for (int n = 1; n <= 5; ++n) ASSERT_EQ(publish(publisher, "/pub/feed", body(n).substr(0, kSmallBody)), 200);
  ASSERT_TRUE(sse.wait_for(5));
  for (int n = 1; n <= 5; ++n) ASSERT_TRUE(ws_reader.read_message().has_value());
  EXPECT_EQ(server.server().stats().latest_loose, 1u);
  EXPECT_EQ(server.server().stats().latest_unbounded, 0u);
}

// A reader's kernel never takes back window it offered. When the buffer
// behind it shrinks (here the reader sets a smaller SO_RCVBUF; under memory
// pressure Linux narrows it by itself), the window stays wider than the
// buffer now offers until bytes fill the difference, and its edge does not
// move when the reader reads. By the window alone, what the reader read is
// unread for good: the gate held the next frame, which would have filled
// that difference, and the reader got nothing more. A window whose edge
// stood still while only probes were acknowledged is now padded (SSE
// comments fill the difference, and the reader's next read shows), and the
// reader gets every key.
TEST(LatestWindow, AReaderWhoseBufferShrankGetsEveryKeysNewestValue) {
  constexpr int kKeys = 50;
  RunningServer server(latest_config(1));  // the default
  SseSubscriber reader(server.port(), "/sse/feed", 16384);
  ASSERT_TRUE(reader.opened());
  const int smaller = 12288;
  ASSERT_EQ(::setsockopt(reader.client().fd(), SOL_SOCKET, SO_RCVBUF, &smaller, sizeof smaller), 0);
  TestClient publisher(server.port());
  std::string pipelined;
  for (int key = 0; key < kKeys; ++key) {
    const std::string value = "k" + std::to_string(key) + "x";
    pipelined += post_request("/pub/feed?key=k" + std::to_string(key), value + std::string(kBody - value.size(), 'p'));
  }
  publisher.send(pipelined);
  for (int key = 0; key < kKeys; ++key) ASSERT_EQ(read_reply(publisher).status, 200);
  std::set<int> keys;
  EXPECT_TRUE(reader.client().read_until(
      [&](const std::string&) {
        reader.parse_buffered();
        for (const auto& e : reader.events()) {
          int key = 0;
          if (e.type == "message" && std::sscanf(e.data.c_str(), "k%dx", &key) == 1) keys.insert(key);
        }
        reader.events().clear();
        return keys.size() == kKeys;
      },
      20s))
      << keys.size() << " of " << kKeys << " keys read";
}

TEST(LatestWindow, WithTheWindowOffTheKernelHoldsWhatItTakes) {
  server::Config config = latest_config(0);
  config.tcp_notsent_lowat = 64 * 1024;
  RunningServer server(config);
  SseSubscriber reader(server.port(), "/sse/feed", 4096);
  ASSERT_TRUE(reader.opened());
  const int server_fd = server_side_of(reader.client().fd());
  ASSERT_GE(server_fd, 0);
  // Without a window, everything the kernel takes goes in; the reader then
  // reads the oldest first.
  EXPECT_GT(publish_all(server.port(), server_fd, reader.client().fd(), "/pub/feed"), 8 * kFrameOnWire);
  ASSERT_TRUE(reader.wait_for(1));
  EXPECT_EQ(std::atoi(reader.events().front().data.substr(0, 6).c_str()), 1);
}

}  // namespace
}  // namespace sluice::test
