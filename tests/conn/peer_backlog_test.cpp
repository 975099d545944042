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
#include <utility>
#include <vector>

#include "io/socket.hpp"
#include "loopback_pair.hpp"

namespace sluice::conn {
namespace {

using Clock = PeerBacklog::Clock;
using namespace std::chrono_literals;

using test::kPatience;

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
  std::uint8_t scale = 0;  // its window scale
  Backlog look() {
    return backlog.estimate({.send_queue = 0, .peer_window = window, .window_scale = scale, .acked = acked}, now);
  }
  // Its kernel took `bytes` that it does not read.
  void holds(std::uint32_t bytes) {
    acked += bytes;
    window -= bytes;
  }
  // It was sent `bytes` of frames and read them all, at one look: enough
  // of them pays for a burst of padding.
  void has_read(std::uint64_t bytes) {
    now += 10ms;
    acked += bytes;
    (void)look();
  }
};

// Looks every `gap` (10 ms) at a reader that reads nothing; each padding
// asked for is queued, as a gate does, and arrives by the next look
// (`arrive(bytes)` moves its kernel's figures), until `done(paddings)`:
// the paddings asked for, in bytes.
template <class Arrive, class Done>
std::vector<std::size_t> paddings_asked(ToldReader& reader, Arrive arrive, Done done,
                                        Clock::duration gap = 10ms) {
  std::vector<std::size_t> paddings;
  while (!done(paddings)) {
    reader.now += gap;
    const Backlog look = reader.look();
    if (look.padding == 0) continue;
    paddings.push_back(look.padding);
    reader.backlog.padded(look.padding, reader.now);
    arrive(look.padding);
  }
  return paddings;
}

// A reader offering `window`, looked at once, that has read enough frames
// to pay for a burst of padding.
ToldReader reader_with_credit(std::uint32_t window, PeerBacklog backlog = PeerBacklog(-1)) {
  ToldReader reader{std::move(backlog)};
  reader.window = window;
  (void)reader.look();
  reader.has_read(4 * PeerBacklog::kPaddingBurst);
  return reader;
}

// The reader stops with two frames unread; looked at every 10 ms, how
// long until padding is asked for (10 s at most), and how much.
struct FirstPadding {
  Clock::duration after{};
  std::size_t bytes = 0;
};

FirstPadding stops_until_padded(ToldReader& reader) {
  reader.now += 10ms;
  reader.holds(2050);
  const auto stopped = reader.now;
  const std::vector<std::size_t> paddings = paddings_asked(
      reader, [&](std::size_t bytes) { reader.holds(static_cast<std::uint32_t>(bytes)); },
      [&](const auto& asked) { return !asked.empty() || reader.now - stopped > 10s; });
  return {reader.now - stopped, paddings.empty() ? 0 : paddings.front()};
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

// What the reader's kernel takes now is its window less what is on its
// way to it; nothing when more is on its way than the window offers.
TEST(PeerBacklogEstimate, RoomIsTheWindowLessWhatIsOnItsWay) {
  PeerBacklog backlog(-1);
  const Clock::time_point t0{};
  EXPECT_EQ(backlog.estimate({.send_queue = 1500, .peer_window = 4096}, t0).room, 4096u - 1500);
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 4096}, t0 + 1ms).room, 4096u);
  EXPECT_EQ(backlog.estimate({.send_queue = 5000, .peer_window = 4096}, t0 + 2ms).room, 0u);
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
  // Its edge moved (it read), so this is no padding's doing.
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
    const Backlog look = backlog.estimate({.send_queue = 0, .peer_window = 1049, .acked = acked}, now);
    EXPECT_EQ(look.unread, 2098u);
    EXPECT_EQ(look.padding, 0u);
    now += 25ms;
  }
  // After a rest, padding is asked for; the frames still count as unread.
  const Backlog rested = backlog.estimate({.send_queue = 0, .peer_window = 1049, .acked = acked}, now);
  EXPECT_EQ(rested.unread, 2098u);
  EXPECT_EQ(rested.padding, PeerBacklog::kFirstPadding);
  EXPECT_EQ(backlog.largest_window(), 3147u);
}

// The reader's kernel shrank the buffer its window offers (memory
// pressure), then the reader read everything. Its kernel never takes back
// window it offered, so the window stays wider than the buffer now offers
// and its edge does not move on a read: 7,277 bytes read look unread. A
// gate's probes, a byte each, take the window down a byte at a time and
// never move the edge. Once the edge has stood still for kRest with only
// probes acknowledged, padding is asked for, twice as much each time the
// edge stands again; once it has filled the difference, the reader's next
// read moves the edge, and the window it offers then is the largest.
TEST(PeerBacklogEstimate, AWindowWhoseEdgeStandsStillIsPaddedUntilAReadShows) {
  ToldReader reader = reader_with_credit(27675);
  reader.now += 10ms;
  reader.holds(7277);
  EXPECT_EQ(reader.look().unread, 7277u);
  constexpr std::uint32_t kOffers = 14000;  // what the narrowed buffer offers, empty
  std::size_t padded = 0;
  const std::vector<std::size_t> paddings = paddings_asked(
      reader,
      [&](std::size_t bytes) {
        padded += bytes;
        reader.acked += bytes;
        // The padding goes in, the window falls by it while it stays above
        // what the buffer offers; the reader reads it at once.
        reader.window = std::max<std::uint32_t>(reader.window - static_cast<std::uint32_t>(bytes), kOffers);
      },
      [&](const auto&) {
        // A probe, acknowledged with the window after the read.
        ++reader.acked;
        return reader.look().unread == 0 || reader.now > Clock::time_point{} + 10s;
      });
  // 512, 1,024 and 2,048 take the window down, short of 14,000. 4,096 fill
  // the rest; the window falls by less than came, which no read shows
  // (the reader's buffer may have grown). The next, read before its
  // acknowledgement, leaves the window as it was: a read.
  ASSERT_EQ(paddings.size(), 5u);
  for (std::size_t i = 0; i < paddings.size(); ++i) EXPECT_EQ(paddings[i], PeerBacklog::kFirstPadding << i) << i;
  EXPECT_EQ(reader.backlog.largest_window(), kOffers);
  EXPECT_EQ(padded, 15872u);
}

// A reader whose buffer is full has data waiting for it (unsent or
// unacknowledged): its edge stands because it stopped, and it is never
// padded while the data waits.
TEST(PeerBacklogEstimate, AReaderWithDataWaitingForItIsNotPadded) {
  PeerBacklog backlog(-1);
  auto now = Clock::time_point{};
  (void)backlog.estimate({.send_queue = 0, .peer_window = 4096, .acked = 0}, now);
  for (int i = 0; i < 300; ++i) {  // 3 s
    now += 10ms;
    const Backlog look = backlog.estimate({.send_queue = 60000, .peer_window = 0, .acked = 4096}, now);
    ASSERT_EQ(look.unread, 4096u) << i;
    ASSERT_EQ(look.padding, 0u) << i;
  }
}

// A reader that stopped looks like one whose buffer shrank: its edge
// stands still. Each padding takes its window down by what it asked, twice
// as much each time, never more than the window; the padding counts as
// unread, and no frame goes in. Once it reads everything (its edge moves),
// the window it offers then is the largest, and the next padding is the
// first again.
TEST(PeerBacklogEstimate, AReaderThatStoppedIsPaddedTwiceAsMuchEachTimeUntilItsWindowCloses) {
  ToldReader reader = reader_with_credit(65536);
  reader.now += 10ms;
  reader.holds(2050);  // two frames
  const std::vector<std::size_t> paddings = paddings_asked(
      reader,
      [&](std::size_t bytes) { reader.holds(static_cast<std::uint32_t>(bytes)); },
      [&](const auto&) { return reader.window == 0 || reader.now > Clock::time_point{} + 60s; });
  ASSERT_EQ(reader.window, 0u);
  // 512 doubling up to 64 KiB, the last what was left of the window.
  ASSERT_EQ(paddings.size(), 7u);
  for (std::size_t i = 0; i + 1 < paddings.size(); ++i) EXPECT_EQ(paddings[i], PeerBacklog::kFirstPadding << i) << i;
  EXPECT_EQ(reader.look().unread, 65536u);
  // Nothing more while the window is closed.
  for (int i = 0; i < 100; ++i) {
    reader.now += 10ms;
    ASSERT_EQ(reader.look().padding, 0u) << i;
  }
  // It reads everything, into a buffer that now offers less: its edge moves,
  // and the window offered then is the largest.
  reader.window = 40000;
  reader.now += 10ms;
  EXPECT_EQ(reader.look().unread, 0u);
  EXPECT_EQ(reader.backlog.largest_window(), 40000u);
  // It stops again: the next padding is the first, and a rest away. The
  // minute before its read taught no wait: padding showed that read, in a
  // narrowed buffer, and the time was ours.
  const FirstPadding next = stops_until_padded(reader);
  EXPECT_GE(next.after, PeerBacklog::kRest);
  EXPECT_LT(next.after, PeerBacklog::kRest + 30ms);
  EXPECT_EQ(next.bytes, PeerBacklog::kFirstPadding);
}

// A wait is timed only by looks close together: a reader that showed
// bytes unread at one look and none at the next, 900 ms later (nothing
// was sent meanwhile), may have read at once. Its rest stays kRest.
TEST(PeerBacklogEstimate, AWaitIsTimedOnlyByLooksCloseTogether) {
  ToldReader reader = reader_with_credit(65536);
  reader.now += 10ms;
  reader.holds(2050);
  (void)reader.look();
  reader.now += 900ms;
  reader.acked += 1;
  reader.window = 65536;
  EXPECT_EQ(reader.look().unread, 0u);
  EXPECT_LT(stops_until_padded(reader).after, PeerBacklog::kRest + 30ms);
}

// A reader that reads everything every 500 ms, frames coming between its
// reads: its edge stands still for 500 ms each time. Once it has shown
// that wait (the first stand-still is padded after kRest), it is not
// padded between its reads: padding would be read in place of frames. One
// quick read among them (frames that came just before it) does not undo
// that.
TEST(PeerBacklogEstimate, AReaderThatReadsEveryHalfSecondIsNotPaddedBetweenItsReads) {
  ToldReader reader = reader_with_credit(65536);
  std::vector<std::size_t> padded_in_round;
  for (int round = 0; round < 10; ++round) {
    reader.now += 10ms;
    reader.holds(2050);
    std::size_t padded = 0;
    const int looks = round == 5 ? 2 : 50;
    for (int look = 0; look < looks; ++look) {
      reader.now += 10ms;
      const std::size_t padding = reader.look().padding;
      if (padding != 0) {
        reader.backlog.padded(padding, reader.now);
        reader.holds(static_cast<std::uint32_t>(padding));
      }
      padded += padding;
    }
    padded_in_round.push_back(padded);
    // It reads everything; a probe brings the window it offers then.
    reader.now += 10ms;
    reader.acked += 1;
    reader.window = 65536;
    ASSERT_EQ(reader.look().unread, 0u) << round;
  }
  EXPECT_GT(padded_in_round.front(), 0u);
  for (std::size_t round = 1; round < padded_in_round.size(); ++round) {
    EXPECT_EQ(padded_in_round[round], 0u) << round;
  }
}

// A window back at its largest shows nothing unread, whether the reader
// read or its buffer grew by more than came (no read, by the edge): the
// next stand-still's padding starts again from the least.
TEST(PeerBacklogEstimate, PaddingStartsAgainFromTheLeastOnceTheWindowIsBackAtItsLargest) {
  ToldReader reader = reader_with_credit(65536);
  reader.now += 10ms;
  reader.holds(2050);
  const std::vector<std::size_t> first = paddings_asked(
      reader, [&](std::size_t bytes) { reader.holds(static_cast<std::uint32_t>(bytes)); },
      [](const auto& paddings) { return paddings.size() == 2; });
  EXPECT_EQ(first, (std::vector<std::size_t>{PeerBacklog::kFirstPadding, 2 * PeerBacklog::kFirstPadding}));
  // A frame comes, and the window is back at its largest.
  reader.now += 10ms;
  reader.acked += 1025;
  reader.window = 65536;
  EXPECT_EQ(reader.look().unread, 0u);
  EXPECT_EQ(stops_until_padded(reader).bytes, PeerBacklog::kFirstPadding);
}

// Padding is held to a budget per socket: the first kPaddingBurst as
// asked, then the configured bytes a second; what the gate sends past an
// ask is owed. A budget of 0 asks for none.
TEST(PeerBacklogEstimate, PaddingIsAskedForWithinItsBudget) {
  // Less than the credit earns by the clock: here the budget binds.
  constexpr std::size_t kRate = PeerBacklog::kPaddingCreditPerSecond / 2;
  constexpr std::size_t kOver = 100;  // the gate's padding frames pass each ask by this much
  for (const std::size_t rate : {kRate, std::size_t{0}}) {
    // A reader that stopped, with a window wider than 10 s of padding,
    // after reading enough to pay for a burst of it.
    ToldReader reader = reader_with_credit(4 << 20, PeerBacklog(-1, rate));
    reader.now += 10ms;
    reader.holds(2050);
    const auto start = reader.now;
    std::size_t spent = 0;
    const std::vector<std::size_t> paddings = paddings_asked(
        reader,
        [&](std::size_t bytes) {
          reader.holds(static_cast<std::uint32_t>(bytes + kOver));
          reader.backlog.padded(kOver, reader.now);
          spent += bytes + kOver;
        },
        [&](const auto&) { return reader.now - start >= 10s; });
    if (rate == 0) {
      EXPECT_TRUE(paddings.empty());
      continue;
    }
    // Doubling from 512 while the first kPaddingBurst lasts.
    ASSERT_GE(paddings.size(), 7u);
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(paddings[i], PeerBacklog::kFirstPadding << i) << i;
    // Then what the rate earns, the overshoot owed: over 10 s the burst and
    // 10 s of the rate at most (and an ask's overshoot, not yet paid).
    EXPECT_LE(spent, PeerBacklog::kPaddingBurst + 10 * kRate + kOver);
    EXPECT_GE(spent, PeerBacklog::kPaddingBurst + 8 * kRate);
  }
}

// Padding is paid for by what else the reader was sent: a reader that
// stopped after 64 KiB of frames is padded within its first credit, a
// quarter of those frames and what the clock earns, less than the budget
// alone would let go (64 KiB, then 16 KiB a second).
TEST(PeerBacklogEstimate, PaddingIsPaidForByWhatElseTheReaderWasSent) {
  constexpr std::size_t kOver = 100;
  constexpr std::size_t kFrames = 65536;
  constexpr auto kRun = 3s;
  ToldReader reader;
  reader.window = 4 << 20;
  // What the connection carried before its first look (a handshake, other
  // streams) was not sent through the gate, and pays for nothing.
  reader.acked = 1 << 20;
  (void)reader.look();
  const std::size_t before = reader.acked;
  reader.has_read(kFrames - 2050);
  reader.now += 10ms;
  reader.holds(2050);
  const std::size_t data = reader.acked - before;
  const auto start = reader.now;
  std::size_t spent = 0;
  (void)paddings_asked(
      reader,
      [&](std::size_t bytes) {
        reader.holds(static_cast<std::uint32_t>(bytes + kOver));
        reader.backlog.padded(kOver, reader.now);
        spent += bytes + kOver;
      },
      [&](const auto&) { return reader.now - start >= kRun; });
  // The first credit, a quarter of the frames, and the clock's 3 s (and
  // the few looks before them).
  const std::size_t earned = PeerBacklog::kFirstPaddingCredit + data / PeerBacklog::kDataPerPaddingByte +
                             3 * PeerBacklog::kPaddingCreditPerSecond;
  EXPECT_LE(spent, earned + PeerBacklog::kPaddingCreditPerSecond / 10 + kOver);
  EXPECT_GE(spent + 2 * PeerBacklog::kFirstPadding, earned);
}

// The clock's share of the credit is earned however close together the
// looks come: a held reader looked at every 1.5 us, its credit spent, is
// padded again each time the clock has paid for the least padding.
TEST(PeerBacklogEstimate, TheClockEarnsCreditBetweenLooksMicrosecondsApart) {
  ToldReader reader;
  reader.window = 4 << 20;
  (void)reader.look();
  reader.now += 10ms;
  reader.holds(2050);
  const auto start = reader.now;
  const std::vector<std::size_t> paddings = paddings_asked(
      reader, [&](std::size_t bytes) { reader.holds(static_cast<std::uint32_t>(bytes)); },
      [&](const auto&) { return reader.now - start >= 3s; }, 1500ns);
  std::size_t spent = 0;
  for (const std::size_t bytes : paddings) spent += bytes;
  // The first credit, a quarter of the frames and what 3 s earn, nearly all spent.
  const std::size_t earned = PeerBacklog::kFirstPaddingCredit + 2050 / PeerBacklog::kDataPerPaddingByte +
                             3 * PeerBacklog::kPaddingCreditPerSecond;
  EXPECT_LE(spent, earned);
  EXPECT_GE(spent + 2 * PeerBacklog::kFirstPadding, earned);
}

// A window that moves in 16 KiB steps shows no padding under 32 KiB: the
// clock pays for that much every kLongestRest, so that such a reader held
// for good is padded every two seconds, not every eight.
TEST(PeerBacklogEstimate, TheClockPaysForTheLeastPaddingAWideStepShows) {
  constexpr std::uint32_t kStep = 16384;
  ToldReader reader;
  reader.scale = 14;
  reader.window = 64 * kStep;
  (void)reader.look();
  reader.now += 10ms;
  reader.holds(2 * kStep);
  const auto start = reader.now;
  const std::vector<std::size_t> paddings = paddings_asked(
      reader, [&](std::size_t bytes) { reader.holds(static_cast<std::uint32_t>(bytes)); },
      [&](const auto&) { return reader.now - start >= 2 * PeerBacklog::kLongestRest + 500ms; });
  ASSERT_GE(paddings.size(), 2u);
  for (const std::size_t bytes : paddings) EXPECT_GE(bytes, 2 * kStep);
}

// A budget left alone fills to kPaddingBurst and no further.
TEST(PeerBacklogEstimate, AnIdleBudgetFillsToTheBurst) {
  PeerBacklog backlog(-1, 1 << 20);
  const Clock::time_point t0{};
  backlog.padded(PeerBacklog::kPaddingBurst, t0);
  EXPECT_EQ(backlog.padding_budget(t0), 0u);
  EXPECT_EQ(backlog.padding_budget(t0 + 31250us), PeerBacklog::kPaddingBurst / 2);
  EXPECT_EQ(backlog.padding_budget(t0 + 1s), PeerBacklog::kPaddingBurst);
  EXPECT_EQ(backlog.padding_budget(t0 + std::chrono::hours(24 * 365 * 10)), PeerBacklog::kPaddingBurst);
  // Overdrawn: what is earned pays the debt first.
  backlog.padded(PeerBacklog::kPaddingBurst + 1000, t0 + 2s);
  EXPECT_EQ(backlog.padding_budget(t0 + 2s), 0u);
  EXPECT_EQ(backlog.padding_budget(t0 + 2s + 31250us), PeerBacklog::kPaddingBurst / 2 - 1000);
}

// Padding that leaves the window as it was (the reader read it before its
// kernel acknowledged it) shows a read: the window offered then is the
// largest. One that the window took in part shows none, as when a stopped
// reader's buffer grows by less than came.
TEST(PeerBacklogEstimate, PaddingTheWindowTookNoneOfShowsARead) {
  for (const std::uint32_t taken : {0u, 300u}) {
    ToldReader reader;
    reader.window = 20000;
    (void)reader.look();
    reader.now += 10ms;
    reader.holds(2000);
    const std::vector<std::size_t> paddings = paddings_asked(
        reader,
        [&](std::size_t bytes) {
          reader.acked += bytes;
          reader.window -= taken;
        },
        [&](const auto& so_far) { return !so_far.empty(); });
    reader.now += 10ms;
    const Backlog after = reader.look();
    if (taken == 0) {
      EXPECT_EQ(after.unread, 0u);
      EXPECT_EQ(reader.backlog.largest_window(), 18000u);
    } else {
      EXPECT_EQ(after.unread, 2000u + taken);
      EXPECT_EQ(reader.backlog.largest_window(), 20000u);
    }
  }
}

// With window scaling the window moves in steps: a padding shorter than
// two of them may leave it as it was while it sits unread. A padding asked
// for is two steps at least, and less than that shows no read.
TEST(PeerBacklogEstimate, PaddingIsTwoStepsOfTheWindowAtLeast) {
  PeerBacklog backlog(-1);
  auto now = Clock::time_point{};
  const auto look = [&](std::uint32_t window, std::uint64_t acked) {
    return backlog.estimate({.send_queue = 0, .peer_window = window, .window_scale = 11, .acked = acked}, now);
  };
  (void)look(65536, 0);
  now += 10ms;
  (void)look(63488, 2048);
  Backlog asked;
  while (asked.padding == 0) {
    now += 10ms;
    asked = look(63488, 2048);
  }
  EXPECT_EQ(asked.padding, 4096u);
  // 2,000 bytes came and the window did not move: no read.
  now += 10ms;
  EXPECT_EQ(look(63488, 4048).unread, 2048u);
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
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 17000, .acked = 3000}, now).padding, 0u);
  const auto frame_at = now;
  now += 100ms;  // past a rest from the first data, not from the frame
  EXPECT_EQ(backlog.estimate({.send_queue = 0, .peer_window = 17000, .acked = 3000}, now).padding, 0u);
  now = frame_at + PeerBacklog::kRest;
  const Backlog rested = backlog.estimate({.send_queue = 0, .peer_window = 17000, .acked = 3000}, now);
  EXPECT_EQ(rested.padding, PeerBacklog::kFirstPadding);
  EXPECT_EQ(rested.unread, 3000u);
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
  // The reader's kernel may have narrowed its buffer after the window it
  // offered as it grew: the padding asked for goes in, as a gate sends it.
  const Backlog drained = sample_until(backlog, [&](const Backlog& b) {
    if (b.padding > 0) (void)write_some(pair.sender, b.padding);
    return b.total() == 0;
  });
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
