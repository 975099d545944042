// PeerBacklog: the estimate's arithmetic from given kernel figures, then
// against a real kernel (loopback TCP, a reader that does not read and one
// that drains, and sockets the estimate cannot read).
#include "conn/peer_backlog.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "io/socket.hpp"
#include "loopback_pair.hpp"

namespace sluice::conn {
namespace {

using Clock = PeerBacklog::Clock;
using namespace std::chrono_literals;

constexpr auto kPatience = 10s;  // a bound against a hang, not a timing

using TcpPair = test::LoopbackPair;

std::size_t write_some(int fd, std::size_t bytes) {
  const std::string chunk(bytes, 'x');
  const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

// Samples until `done` holds; the last sample.
template <class Done>
Backlog sample_until(PeerBacklog& backlog, Done done) {
  Backlog last;
  for (const auto deadline = Clock::now() + kPatience; Clock::now() < deadline;) {
    const std::optional<Backlog> b = backlog.sample(Clock::now());
    EXPECT_TRUE(b.has_value());
    if (!b) return last;
    last = *b;
    if (done(last)) return last;
    std::this_thread::sleep_for(1ms);
  }
  ADD_FAILURE() << "the estimate never settled: in flight " << last.in_flight << ", unread " << last.unread;
  return last;
}

// The arithmetic, from what the kernel would have said.

// A reader as its kernel would tell of it, the test moving its clock, the
// bytes it acknowledged and its window.
struct ToldReader {
  PeerBacklog backlog{-1};
  Clock::time_point now{};
  std::uint64_t acked = 0;
  std::uint32_t window = 65536;
  Backlog look() { return backlog.estimate({.send_queue = 0, .peer_window = window, .acked = acked}, now); }
};

// Releases frames into a reader that reads none (`release` moves its
// kernel's figures) each time it is forgiven, looking every 10 ms, until
// `done(waits)`: how long each release waited for its forgiveness.
template <class Release, class Done>
std::vector<Clock::duration> forgiveness_waits(ToldReader& reader, Release release, Done done) {
  (void)reader.look();
  release();
  std::vector<Clock::duration> waits;
  auto released_at = reader.now;
  while (!done(waits)) {
    reader.now += 10ms;
    if (reader.look().unread != 0) continue;
    waits.push_back(reader.now - released_at);
    release();
    released_at = reader.now + 10ms;  // acknowledged by the next look
  }
  return waits;
}

TEST(PeerBacklogEstimate, SendQueueIsInFlightAndAFullWindowMeansNothingUnread) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  const Backlog b = backlog.estimate({.send_queue = 1500, .peer_window = 4096}, t0);
  EXPECT_EQ(b.in_flight, 1500u);
  EXPECT_EQ(b.unread, 0u);
  EXPECT_EQ(b.total(), 1500u);
  EXPECT_EQ(backlog.largest_window(), 4096u);
}

TEST(PeerBacklogEstimate, AWindowNarrowerThanTheLargestIsUnreadBytes) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  (void)backlog.estimate({.send_queue = 0, .peer_window = 4096}, t0);
  const Backlog b = backlog.estimate({.send_queue = 200, .peer_window = 1024}, t0 + 10ms);
  EXPECT_EQ(b.unread, 3072u);
  EXPECT_EQ(b.total(), 3272u);
  // The reader read: its window opened again.
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 4096}, t0 + 20ms).total(), 0u);
}

TEST(PeerBacklogEstimate, AWiderWindowRaisesTheLargest) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  (void)backlog.estimate({.send_queue = 0, .peer_window = 4096}, t0);
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 65536}, t0 + 1ms).unread, 0u);
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 60000}, t0 + 2ms).unread, 5536u);
}

// The reader had a whole kWindowMemory with nothing sent to it to read
// what it had: a look after that starts the estimate afresh.
TEST(PeerBacklogEstimate, ALookAfterALongSilenceStartsAfresh) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  const auto silence = PeerBacklog::kWindowMemory;
  (void)backlog.estimate({.send_queue = 0, .peer_window = 8192, .acked = 0}, t0);
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 4096, .acked = 4096}, t0 + silence - 1ms).unread,
            4096u);
  // Its edge moved (it read), so this is not a forgiveness.
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 4096, .acked = 6144}, t0 + 2 * silence).unread, 0u);
  EXPECT_EQ(backlog.largest_window(), 4096u);
}

// A reader that reads every 50 ms but never empties its buffer (each read
// leaves a frame) never shows its largest window again; each read moves
// its window's right edge (acked + window), so the edge never stands still
// and the frame it holds still counts as unread. Once the reader stops, its
// edge stands still, and after PeerBacklog::kRest the largest goes.
TEST(PeerBacklogEstimate, ALargestWindowIsKeptWhileTheEdgeMoves) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  std::uint64_t acked = 0;
  (void)backlog.estimate({.send_queue = 0, .peer_window = 3147, .acked = acked}, t0);
  auto now = t0;
  for (int i = 1; i <= 100; ++i) {  // 5 s
    now += 25ms;
    (void)backlog.estimate({.send_queue = 1049, .peer_window = 2098, .acked = acked}, now);  // a frame arrives
    acked += 1049;
    now += 25ms;
    ASSERT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 1049, .acked = acked}, now).unread, 2098u)
        << "read " << i;
  }
  EXPECT_EQ(backlog.largest_window(), 3147u);
  // Stopped from here: two frames left unread, nothing more coming.
  const auto stop = now;
  while (now < stop + PeerBacklog::kRest) {
    EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 1049, .acked = acked}, now).unread, 2098u);
    now += 25ms;
  }
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 1049, .acked = acked}, now).unread, 0u);
  EXPECT_EQ(backlog.largest_window(), 1049u);
}

// The reader's kernel shrank the buffer its window offers (memory
// pressure), then the reader read everything. Its kernel never takes back
// window it offered, so the window stays wider than the buffer now offers
// and its edge does not move on a read: 7,277 bytes read look unread. A
// gate's probes, a byte each, take the window down a byte at a time and
// never move the edge. Once the edge has stood still for kRest with only
// probes acknowledged, the window it shows is the largest.
TEST(PeerBacklogEstimate, AWindowWhoseEdgeStandsStillWhileOnlyProbesComeIsTheLargestAfterARest) {
  PeerBacklog backlog(-1);
  auto now = Clock::time_point{};
  std::uint64_t acked = 0;
  std::uint32_t window = 27675;
  (void)backlog.estimate({.send_queue = 0, .peer_window = window, .acked = acked}, now);
  now += 10ms;
  acked += 7277;
  window -= 7277;
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = window, .acked = acked}, now).unread, 7277u);
  const auto data_at = now;
  std::uint32_t probes = 0;
  for (;;) {
    now += 25ms;  // a probe in flight
    const Backlog flying = backlog.estimate({.send_queue = 1, .peer_window = window, .acked = acked}, now);
    now += 25ms;  // and acknowledged
    ++acked;
    --window;
    ++probes;
    const Backlog answered = backlog.estimate({.send_queue = 0, .peer_window = window, .acked = acked}, now);
    if (now - data_at < PeerBacklog::kRest) {
      EXPECT_EQ(flying.unread, 7277u + probes - 1);
      EXPECT_EQ(answered.unread, 7277u + probes);
      continue;
    }
    EXPECT_EQ(answered.unread, 0u);
    EXPECT_EQ(backlog.largest_window(), window);
    break;
  }
}

// A reader whose buffer is full has data waiting for it (unsent or
// unacknowledged): its edge stands because it stopped, and it is never
// forgiven while the data waits.
TEST(PeerBacklogEstimate, AReaderWithDataWaitingForItIsNotForgiven) {
  PeerBacklog backlog(-1);
  auto now = Clock::time_point{};
  (void)backlog.estimate({.send_queue = 0, .peer_window = 4096, .acked = 0}, now);
  for (int i = 0; i < 300; ++i) {  // 3 s
    now += 10ms;
    ASSERT_EQ(backlog.estimate({.send_queue = 60000, .peer_window = 0, .acked = 4096}, now).unread, 4096u) << i;
  }
}

// A stopped reader's buffer may grow as frames arrive, so its edge moves:
// no read, as data arrived, and no new start for the doubling.
TEST(PeerBacklogEstimate, AnEdgeMovingAsFramesArriveIsNoRead) {
  ToldReader reader;
  const auto release = [&] {
    reader.acked += 2050;         // two frames, acknowledged and not read
    reader.window -= 2050 - 500;  // the buffer grew by 500 bytes as they came
  };
  const std::vector<Clock::duration> waits =
      forgiveness_waits(reader, release, [&](const auto&) { return reader.now >= Clock::time_point{} + 10s; });
  const int forgiven = static_cast<int>(waits.size());
  const Clock::duration last_wait = waits.empty() ? Clock::duration{} : waits.back();
  // 0.25, 0.5, 1, then every 2 s: 7 within 10 s, as without the growth.
  EXPECT_EQ(forgiven, 7);
  EXPECT_GE(last_wait, PeerBacklog::kRest * (1 << PeerBacklog::kMostForgivenessDoublings));
}

// Data acknowledged while the edge stands may be unread: the rest starts
// again from it.
TEST(PeerBacklogEstimate, DataAcknowledgedWhileTheEdgeStandsStartsTheRestAgain) {
  PeerBacklog backlog(-1);
  auto now = Clock::time_point{};
  (void)backlog.estimate({.send_queue = 0, .peer_window = 20000, .acked = 0}, now);
  now += 10ms;
  (void)backlog.estimate({.send_queue = 0, .peer_window = 18000, .acked = 2000}, now);
  now += PeerBacklog::kRest - 50ms;
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 17000, .acked = 3000}, now).unread, 3000u);
  const auto frame_at = now;
  now += 100ms;  // past a rest from the first data, not from the frame
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 17000, .acked = 3000}, now).unread, 3000u);
  now = frame_at + PeerBacklog::kRest;
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 17000, .acked = 3000}, now).unread, 0u);
}

// A reader that stopped looks like one whose buffer shrank: its edge
// stands still. Each forgiveness lets a gate release two more frames into
// it, and the next without the edge moving comes twice as late, up to
// kRest << kMostForgivenessDoublings. Once the edge moves (it read), the
// window it offers then is the largest, and the next forgiveness comes
// after kRest again.
TEST(PeerBacklogEstimate, AReaderThatStoppedIsForgivenLessOftenEachTime) {
  ToldReader reader;
  const auto release = [&] {  // two frames, acknowledged and not read
    reader.acked += 2050;
    reader.window -= 2050;
  };
  const std::vector<Clock::duration> waits = forgiveness_waits(reader, release, [&](const auto& so_far) {
    return so_far.size() >= 8 || reader.now >= Clock::time_point{} + 60s;
  });
  ASSERT_EQ(waits.size(), 8u);
  for (std::size_t i = 0; i < waits.size(); ++i) {
    const auto least = PeerBacklog::kRest * (1 << std::min<std::size_t>(i, PeerBacklog::kMostForgivenessDoublings));
    EXPECT_GE(waits[i], least) << "forgiveness " << i;
    EXPECT_LT(waits[i], least + 30ms) << "forgiveness " << i;
  }
  // It reads everything, into a buffer that now offers less than the
  // window it was last forgiven at: its edge moves, and the window offered
  // then is the largest.
  reader.now += 10ms;  // the frames last released, acknowledged
  (void)reader.look();
  ASSERT_LT(reader.window + 1000, reader.backlog.largest_window());
  reader.window += 1000;
  reader.now += 10ms;
  EXPECT_EQ(reader.look().unread, 0u);
  EXPECT_EQ(reader.backlog.largest_window(), reader.window);
  // It stops again: the next forgiveness is a rest away, not the longest.
  release();
  const auto stopped = reader.now;
  do {
    reader.now += 10ms;
  } while (reader.look().unread != 0);
  EXPECT_GE(reader.now - stopped, PeerBacklog::kRest);
  EXPECT_LT(reader.now - stopped, PeerBacklog::kRest + 30ms);
}

TEST(PeerBacklogEstimate, APeriodWithNoSampleForgetsBoth) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  (void)backlog.estimate({.send_queue = 0, .peer_window = 8192}, t0);
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 2048}, t0 + 5 * PeerBacklog::kWindowMemory).unread, 0u);
}

TEST(PeerBacklogEstimate, SentBytesThePathDeliversWithinARoundTripAreArriving) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  (void)backlog.estimate({.send_queue = 0, .peer_window = 65536}, t0);
  // 30,000 bytes queued, 10,000 of them unsent: 20,000 on the path, which
  // at 375,000 bytes/s and a 40 ms round trip delivers 15,000 a round trip.
  const Backlog b = backlog.estimate({.send_queue = 30'000,
                                      .peer_window = 65536,
                                      .unsent = 10'000,
                                      .delivery_rate = 375'000,
                                      .min_rtt_us = 40'000,
                                      .rate_app_limited = false},
                                     t0 + 1ms);
  EXPECT_EQ(b.in_flight, 30'000u);
  EXPECT_EQ(b.arriving, 15'000u);
  // The same with the rate set by what was sent: nothing is arriving.
  EXPECT_EQ(backlog.estimate({.send_queue = 30'000,
                              .peer_window = 65536,
                              .unsent = 10'000,
                              .delivery_rate = 375'000,
                              .min_rtt_us = 40'000,
                              .rate_app_limited = true},
                             t0 + 2ms)
                .arriving,
            0u);
  // All of it unsent (the reader's window is closed): nothing is arriving.
  EXPECT_EQ(backlog.estimate({.send_queue = 30'000,
                              .peer_window = 0,
                              .unsent = 30'000,
                              .delivery_rate = 375'000,
                              .min_rtt_us = 40'000,
                              .rate_app_limited = false},
                             t0 + 3ms)
                .arriving,
            0u);
}

// The reader's window moves in steps of 2^its window scale: the step is
// what a write must reach for its ACK to show it unread.
TEST(PeerBacklogEstimate, TheWindowScaleIsTheStepTheWindowMovesIn) {
  const auto t0 = Clock::now();
  PeerBacklog backlog(-1);
  EXPECT_EQ(backlog.estimate({.peer_window = 65536}, t0).window_unit, 1u);
  EXPECT_EQ(backlog.estimate({.peer_window = 65536, .window_scale = 7}, t0).window_unit, 128u);
  EXPECT_EQ(backlog.estimate({.peer_window = 65536, .window_scale = 10}, t0).window_unit, 1024u);
  // TCP scales by 14 at most; a larger figure is read as 14.
  EXPECT_EQ(backlog.estimate({.peer_window = 65536, .window_scale = 15}, t0).window_unit, 16384u);
}

TEST(PeerBacklogEstimate, NoSocketNoSample) {
  PeerBacklog backlog(-1);
  EXPECT_FALSE(backlog.sample(Clock::now()).has_value());
}

// Against the kernel.

TEST(PeerBacklog, CountsWhatAReaderThatDoesNotReadHoldsToTheByte) {
  TcpPair pair(4096);
  PeerBacklog backlog(pair.sender);
  const std::optional<Backlog> idle = backlog.sample(Clock::now());
  ASSERT_TRUE(idle.has_value());
  EXPECT_EQ(idle->total(), 0u);
  const std::uint32_t window = backlog.largest_window();
  ASSERT_GE(window, 2048u);
  // Within the window the reader first offered, every byte it was sent and
  // acknowledged shows, once its ACK (perhaps delayed) has come.
  ASSERT_EQ(write_some(pair.sender, 1024), 1024u);
  ASSERT_EQ(write_some(pair.sender, 1024), 1024u);
  const Backlog settled = sample_until(backlog, [](const Backlog& b) { return b.in_flight == 0; });
  EXPECT_EQ(settled.unread, 2048u);
  EXPECT_EQ(pair.unread_at_reader(), 2048u);
}

TEST(PeerBacklog, GrowsToTheReceiveBufferWhenTheReaderStops) {
  TcpPair pair(4096);
  PeerBacklog backlog(pair.sender);
  ASSERT_TRUE(backlog.sample(Clock::now()).has_value());
  std::size_t written = 0;
  for (int i = 0; i < 64; ++i) written += write_some(pair.sender, 1024);
  ASSERT_GT(written, 16384u);
  // The window closes: everything the reader holds counts as unread, the
  // rest waits unsent on our side, and nothing written is left out but
  // what the window grew by beyond the one first offered.
  const Backlog full = sample_until(backlog, [&](const Backlog& b) {
    return b.unread == backlog.largest_window() && b.in_flight + b.unread + 4096 >= written;
  });
  EXPECT_GE(full.unread, 2048u);
  EXPECT_LE(full.total(), written);
  EXPECT_GE(full.unread + 4096, pair.unread_at_reader());
}

TEST(PeerBacklog, FallsBackToNothingWhenTheReaderDrains) {
  TcpPair pair(0);  // the kernel's default, autotuned buffer
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    char buffer[65536];
    const timeval tick{0, 10000};
    ::setsockopt(pair.reader, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
    while (!stop.load()) (void)::recv(pair.reader, buffer, sizeof buffer, 0);
  });
  PeerBacklog backlog(pair.sender);
  ASSERT_TRUE(backlog.sample(Clock::now()).has_value());
  std::size_t written = 0;
  for (int i = 0; i < 200; ++i) {
    written += write_some(pair.sender, 16384);
    (void)backlog.sample(Clock::now());
  }
  EXPECT_GT(written, 0u);
  const Backlog drained = sample_until(backlog, [](const Backlog& b) { return b.total() == 0; });
  EXPECT_EQ(drained.total(), 0u);
  stop = true;
  reader.join();
}

// Why window_unit matters: a reader that scales its window
// (an autotuned buffer) and acknowledges each small write on its own never
// takes back the window it offered, and rounds what is left of it up to a
// whole step: the window stays where it was while the writes pile up
// unread, and the estimate sees none of them.
TEST(PeerBacklog, AWindowInStepsLargerThanTheWritesShowsNoSmallWriteUnread) {
  TcpPair pair(0);  // the kernel's default, autotuned buffer
  PeerBacklog backlog(pair.sender);
  const std::optional<Backlog> idle = backlog.sample(Clock::now());
  ASSERT_TRUE(idle.has_value());
  constexpr std::size_t kWrite = 89;  // a 64-byte event with its SSE framing
  if (idle->window_unit <= kWrite) GTEST_SKIP() << "the reader's window moves in steps of " << idle->window_unit;
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(write_some(pair.sender, kWrite), kWrite);
    const Backlog acked = sample_until(backlog, [](const Backlog& b) { return b.in_flight == 0; });
    EXPECT_EQ(acked.unread, 0u) << "after write " << i;
  }
  EXPECT_EQ(pair.unread_at_reader(), 20 * kWrite);
}

TEST(PeerBacklog, SaysNothingOfASocketThatIsNotTcp) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  PeerBacklog backlog(fds[0]);
  EXPECT_FALSE(backlog.sample(Clock::now()).has_value());
  ::close(fds[0]);
  ::close(fds[1]);
  PeerBacklog closed(fds[0]);
  EXPECT_FALSE(closed.sample(Clock::now()).has_value());
}

}  // namespace
}  // namespace sluice::conn
