// LatencyGate in a Connection on a real loop and real loopback TCP: what it
// holds back from a reader that does not read, what it lets through when
// that reader reads, how a reader that keeps up comes to take whole
// batches, and the fallback on a socket it cannot read.
#include "conn/latency_gate.hpp"

#include <gtest/gtest.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <string>
#include <thread>

#include "arrival_stamps_on.hpp"
#include "conn/connection.hpp"
#include "conn/gate_checks.hpp"
#include "io/socket.hpp"
#include "loopback_pair.hpp"
#include "transport/plain_tcp.hpp"

namespace sluice::conn {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using test::kPatience;

// An SSE stream's probe and padding.
GateFrames sse_frames(buf::Pool& pool) {
  return {.probe = buf::make_frame(pool, buf::Lane::control, "\n"),
          .padding = buf::make_frame(pool, buf::Lane::control, ":" + std::string(62, ' ') + "\n"),
          .wide_padding = buf::make_frame(pool, buf::Lane::control, ":" + std::string(510, ' ') + "\n")};
}

// Takes what its reader sends as answers: each 'P' answers the gate's ask,
// as a WebSocket client's pong answers a ping once it has read what came
// before it.
class AnsweredConnection final : public Connection {
 public:
  using Connection::Connection;

  int answers = 0;  // answers read
  bool hold = false;  // the protocol holds its input (a message waits for room)

 protected:
  void on_input(std::string& input) override {
    for (const char c : input) {
      if (c != 'P') continue;
      ++answers;
      read_receipt();
    }
    input.clear();
  }
  void on_closed(CloseReason) override {}
  [[nodiscard]] bool input_held() const override { return hold; }
};

// A reader on loopback with a small receive buffer, so that its window is
// exact to the byte, and the server side of it in a Connection.
struct GatedPair : test::LoopbackPair {
  explicit GatedPair(std::chrono::milliseconds grace, int reader_buffer = 4096) : LoopbackPair(reader_buffer) {
    server = sender;
    connection = std::make_unique<AnsweredConnection>(loop, std::make_unique<transport::PlainTcp>(release_sender()),
                                                   ConnectionLimits{});
    EXPECT_EQ(connection->start(), 0);
    EXPECT_TRUE(connection->bound_unread({.window_frames = 1, .grace = grace}, checks,
                                                sse_frames(pool)));
  }
  void send(std::size_t size, char fill) {
    ASSERT_EQ(connection->send_data(buf::make_frame(pool, buf::Lane::data, std::string(size, fill))),
              EnqueueStatus::ok);
  }
  // Runs the loop until `done` holds.
  template <class Done>
  bool run_until(Done done) {
    for (const auto deadline = Clock::now() + kPatience; Clock::now() < deadline;) {
      if (done()) return true;
      loop.run_once(1);
    }
    return done();
  }
  // Reads what is there, without the probes' blank lines.
  std::string read_frames() {
    std::string got;
    char chunk[65536];
    for (ssize_t n; (n = ::recv(reader, chunk, sizeof chunk, MSG_DONTWAIT)) > 0;) got.append(chunk, static_cast<std::size_t>(n));
    std::erase(got, '\n');
    return got;
  }
  [[nodiscard]] const LatencyGate& gate() const { return *connection->latency_gate(); }
  // Has the gate ask its reader what it has read (the window of an
  // autotuned buffer cannot tell): the ask, "?", goes with a second frame,
  // as something was written since the last answer. True once the reader
  // has read it.
  bool read_an_ask() {
    connection->ask_read_receipts(buf::make_frame(pool, buf::Lane::control, "?"));
    send(64, 'a');
    std::string got;
    if (!run_until([&] { return (got += read_frames()).size() == 64; })) return false;
    send(64, 'b');
    return run_until([&] { return (got += read_frames()).find('?') != std::string::npos; });
  }
  // The reader answers, and the loop does not run for `stall`: the answer
  // comes as the stall begins, or only as it ends.
  void answer_around_a_stall(std::chrono::milliseconds stall, bool answers_late) {
    if (answers_late) std::this_thread::sleep_for(stall);
    ASSERT_EQ(::send(reader, "P", 1, 0), 1);
    if (!answers_late) std::this_thread::sleep_for(stall);
  }
  // A frame to send, and the flush now, before the loop reads what came.
  void flush_before_reading() {
    send(64, 'c');
    static_cast<io::Deferred&>(*connection).run_deferred();
  }
  // Bytes the server's socket holds unacknowledged or unsent.
  [[nodiscard]] std::size_t unacknowledged() const {
    int queued = 0;
    EXPECT_EQ(::ioctl(server, SIOCOUTQ, &queued), 0);
    return static_cast<std::size_t>(queued);
  }

  buf::Pool pool{{.block_count = 4096, .block_size = 4096, .reserve = 16}};
  io::Loop loop;
  GateChecks checks{loop};
  std::unique_ptr<AnsweredConnection> connection;
  int server = -1;  // the connection's socket, which it owns
};

// The reader's window moves in whole segments, and a buffer with frames in
// it may keep offering the same window after one more (a 4 KiB buffer
// with 1000-byte frames offers 2096 bytes with two unread and with three),
// and with frames that do not divide it one can hide in the rounding. What
// reaches a reader that does not read is one frame and what hides so, and
// then nothing more, however often the gate looks.
constexpr std::size_t kHiddenFrames = 2;

TEST(LatencyGate, HoldsBackFromAReaderThatDoesNotRead) {
  GatedPair pair(5ms);
  for (char c = 'a'; c < 'a' + 10; ++c) pair.send(1000, c);
  ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 1000 && pair.gate().holding(); }));
  for (int i = 0; i < 50; ++i) pair.loop.run_once(1);  // the probes' answers may let the hidden frame go
  const std::size_t held = pair.connection->queue().pending_data();
  for (int i = 0; i < 50; ++i) pair.loop.run_once(1);
  EXPECT_EQ(pair.connection->queue().pending_data(), held);  // held in sluice's queue
  EXPECT_GE(held, 10u - 1 - kHiddenFrames);
  EXPECT_LE(pair.unread_at_reader(), (1 + kHiddenFrames) * 1000u + 16);  // and perhaps probes
}

TEST(LatencyGate, SendsMoreOnceTheReaderHasRead) {
  GatedPair pair(5ms);
  std::string expected;
  for (char c = 'a'; c < 'a' + 8; ++c) {
    pair.send(1000, c);
    expected.append(1000, c);
  }
  ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 1000 && pair.gate().holding(); }));
  const std::size_t held = pair.connection->queue().pending_data();
  // The reader reads well after its kernel acknowledged the frames, so
  // that only the gate's probe can make it tell.
  for (int i = 0; i < 20; ++i) pair.loop.run_once(1);
  std::string got = pair.read_frames();
  ASSERT_FALSE(got.empty());
  const auto read_at = Clock::now();
  ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 1000; }));
  // Let go by the estimate, not by forgetting the reader's first window
  // (which a window short of it by less than a frame used to wait for).
  EXPECT_LT(Clock::now() - read_at, PeerBacklog::kRest);
  got += pair.read_frames();
  EXPECT_LT(pair.connection->queue().pending_data(), held);
  EXPECT_EQ(got, expected.substr(0, got.size()));  // in order, nothing lost or repeated
}

// A probe the reader's kernel acknowledged can look read at once: its
// window moves in whole segments, so one byte more in it changes nothing.
// Only data read is progress; probes to a reader that reads nothing back
// off (5 ms, doubling) instead of going one per look, each holding a whole
// buffer of the reader's kernel memory.
TEST(LatencyGate, ProbesAReaderThatDoesNotReadSparingly) {
  GatedPair pair(5ms);
  for (char c = 'a'; c < 'a' + 10; ++c) pair.send(1049, c);  // a size that does not divide the buffer
  ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 1049 && pair.gate().holding(); }));
  for (int i = 0; i < 50; ++i) pair.loop.run_once(1);  // the probes' answers may let the hidden frame go
  const std::size_t frames = pair.unread_at_reader() / 1049 * 1049;
  const std::size_t probes_before = pair.unread_at_reader() - frames;
  const std::size_t held = pair.connection->queue().pending_data();
  const auto start = Clock::now();
  for (int i = 0; i < 150; ++i) pair.loop.run_once(1);
  const auto looked = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  ASSERT_EQ(pair.connection->queue().pending_data(), held);
  const std::size_t probes = pair.unread_at_reader() - frames - probes_before;
  EXPECT_LE(frames, (1 + kHiddenFrames) * 1049);
  // 5, 10, 20, 40, 80 ms apart, then 160 ms (and from 5 ms again should the
  // reader's window open): far fewer than the one per look of a gate that
  // takes a probe read for progress.
  EXPECT_LT(probes, 30u) << "over " << looked.count() << " ms";
}

TEST(LatencyGate, AReaderThatKeepsUpComesToTakeWholeBatches) {
  GatedPair pair(1000ms, 0);  // the kernel's default, autotuned buffer
  std::atomic<bool> stop{false};
  std::string received;
  std::atomic<std::size_t> frame_bytes{0};
  std::thread reader([&] {
    char chunk[65536];
    while (!stop.load()) {
      pollfd p{pair.reader, POLLIN, 0};
      if (::poll(&p, 1, 10) <= 0) continue;
      const ssize_t n = ::recv(pair.reader, chunk, sizeof chunk, 0);
      if (n <= 0) continue;
      const std::string_view got(chunk, static_cast<std::size_t>(n));
      received.append(got);
      frame_bytes += got.size() - static_cast<std::size_t>(std::count(got.begin(), got.end(), '\n'));
    }
  });
  std::string expected;
  for (int batch = 0; batch < 20; ++batch) {
    for (int i = 0; i < 200; ++i) {
      const char c = static_cast<char>('a' + (batch * 200 + i) % 26);
      pair.send(100, c);
      expected.append(100, c);
    }
    ASSERT_TRUE(pair.run_until([&] { return pair.connection->queue().empty(); }));
  }
  ASSERT_TRUE(pair.run_until([&] { return frame_bytes.load() == expected.size(); }));
  stop = true;
  reader.join();
  std::erase(received, '\n');
  EXPECT_TRUE(received == expected) << "the frames arrived changed or out of order";
  // It came to take a whole batch at once.
  EXPECT_GE(pair.gate().grown_allowance(), 200u * 100);
}

// A reader whose kernel delays its ACKs (one it judges interactive, as a
// WebSocket that answers pings is) has read its frame, and the gate cannot
// see that until the ACK goes, 40 ms or more later; the next frame waited
// for it, and `latest` replaced the frames behind. The gate asks instead:
// the answer's segment carries the ACK, and the held frame goes on it.
TEST(LatencyGate, AsksAReaderWhoseKernelDelaysItsAckAndLetsTheHeldFrameGoOnTheAnswer) {
  GatedPair pair(1000ms);  // a grace period long enough that nothing else counts
  pair.connection->ask_read_receipts(buf::make_frame(pair.pool, buf::Lane::control, "?"));
  const int off = 0;
  int held = 0;
  for (int attempt = 0; attempt < 20 && held < 3; ++attempt) {
    // Interactive: ACKs wait for the timer, or for data of the reader's.
    ASSERT_EQ(::setsockopt(pair.reader, IPPROTO_TCP, TCP_QUICKACK, &off, sizeof off), 0);
    pair.send(100, 'a');
    ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 100; }));
    ASSERT_EQ(pair.read_frames(), std::string(100, 'a'));
    pair.send(100, 'b');
    ASSERT_TRUE(pair.run_until([&] { return pair.gate().holding() || pair.unread_at_reader() > 0; }));
    // Only a hold while the frame read is unacknowledged says anything:
    // still so now, it was so when the gate held. (On a busy machine the
    // reader's timer may ACK before the read, and the frame shows unread.)
    const bool on_its_ack = pair.gate().holding() && pair.unacknowledged() > 0;
    std::string got;
    std::size_t answered = 0;
    // The reader takes the frame, answering each ask as it comes.
    ASSERT_TRUE(pair.run_until([&] {
      got += pair.read_frames();
      for (const std::size_t asks = static_cast<std::size_t>(std::count(got.begin(), got.end(), '?'));
           answered < asks; ++answered) {
        EXPECT_EQ(::send(pair.reader, "P", 1, 0), 1);
      }
      return std::count(got.begin(), got.end(), 'b') == 100;
    }));
    if (!on_its_ack) continue;
    ++held;
    // The gate asked, and the frame went after the ask.
    EXPECT_EQ(got, "?" + std::string(100, 'b'));
  }
  EXPECT_GT(held, 0) << "the reader's kernel acknowledged every frame at once";
}

// For a reader that answers the gate's ask as the loop's stall begins, and
// for one that answers only as it ends (grace 100 ms, a stall of three
// times that), `then` goes on from there.
template <class Then>
void for_answers_around_a_stall(Then then) {
  constexpr auto kGrace = 100ms;
  const test::ArrivalStampsOn stamps;
  ASSERT_TRUE(stamps.ready());
  for (const bool answers_late : {false, true}) {
    SCOPED_TRACE(answers_late ? "answers late" : "answers at once");
    GatedPair pair(kGrace, 0);
    ASSERT_TRUE(pair.read_an_ask());
    pair.answer_around_a_stall(3 * kGrace, answers_late);
    then(pair, answers_late);
  }
}

// A loop that stalls (here: the test does not run it) past the grace
// period reads an answer that came in time only after the stall. By the
// loop's clock it is late, and a reader that kept up was taken for behind:
// held to window_frames frames, it lost the burst the stall had gathered
// to `latest`. The gate judges the answer by when it reached this host.
// A reader that answers late is still found behind.
TEST(LatencyGate, AnAnswerThatCameInTimeIsInTimeThoughTheLoopReadsItAfterAStall) {
  for_answers_around_a_stall([](GatedPair& pair, bool answers_late) {
    ASSERT_TRUE(pair.run_until([&] { return pair.connection->answers == 1; }));
    EXPECT_EQ(pair.gate().lagging(), answers_late);
  });
}

// The loop reads a socket after the flushes its tick runs when the
// socket's readiness did not fit the tick's batch of events, or while the
// connection waits for its read turn: a flush then finds the ask past its
// time with the answer waiting unread. Input that came in time waits for
// the read, which judges the answer by when it came; input that came late
// says the answer was late at once.
TEST(LatencyGate, AnAskPastItsTimeWithAnswerWaitingUnreadIsJudgedOnceRead) {
  for_answers_around_a_stall([](GatedPair& pair, bool answers_late) {
    pair.flush_before_reading();
    EXPECT_EQ(pair.connection->answers, 0);
    EXPECT_EQ(pair.gate().lagging(), answers_late);
    ASSERT_TRUE(pair.run_until([&] { return pair.connection->answers == 1; }));
    EXPECT_EQ(pair.gate().lagging(), answers_late);
  });
}

// Input the connection holds back may wait for long (a message that waits
// for room): an answer behind it is judged as one that has not come, as
// before the loop looked for waiting input at all.
TEST(LatencyGate, AnAnswerBehindInputTheConnectionHoldsIsJudgedAsNotCome) {
  const test::ArrivalStampsOn stamps;
  ASSERT_TRUE(stamps.ready());
  GatedPair pair(100ms, 0);
  ASSERT_TRUE(pair.read_an_ask());
  pair.connection->hold = true;
  ASSERT_EQ(::send(pair.reader, "P", 1, 0), 1);
  std::this_thread::sleep_for(300ms);
  pair.flush_before_reading();
  EXPECT_EQ(pair.connection->answers, 0);
  EXPECT_TRUE(pair.gate().lagging());
}

// Work earlier in a tick (here a turn of 300 ms; in a server the drains of
// thousands of connections) delays the flush that writes an ask. Dated
// from the tick's start, the ask's answer came late though the reader
// answered at once; dated when its flush ran, it is in time.
TEST(LatencyGate, AnAskIsDatedWhenItsFlushRunsNotWhenItsTickStarted) {
  struct LongTurn final : io::Deferred {
    void run_deferred() override { std::this_thread::sleep_for(300ms); }
  } long_turn;
  const test::ArrivalStampsOn stamps;
  ASSERT_TRUE(stamps.ready());
  GatedPair pair(100ms, 0);
  pair.connection->ask_read_receipts(buf::make_frame(pair.pool, buf::Lane::control, "?"));
  pair.send(64, 'a');
  std::string got;
  ASSERT_TRUE(pair.run_until([&] { return (got += pair.read_frames()).size() == 64; }));
  pair.loop.defer(&long_turn);  // ahead of the flush that the next frame asks for
  pair.send(64, 'b');
  ASSERT_TRUE(pair.run_until([&] { return (got += pair.read_frames()).find('?') != std::string::npos; }));
  ASSERT_EQ(::send(pair.reader, "P", 1, 0), 1);
  ASSERT_TRUE(pair.run_until([&] { return pair.connection->answers == 1; }));
  EXPECT_FALSE(pair.gate().lagging());
}

// A backlog the test sets, for what the gate decides from given figures;
// it adds the padding it is told went to `padded`, when given one.
class ScriptedBacklog final : public BacklogSource {
 public:
  explicit ScriptedBacklog(Backlog& now, std::size_t* padded = nullptr) : now_(now), padded_(padded) {}
  std::optional<Backlog> sample(Clock::time_point) override { return now_; }
  void padded(std::size_t bytes, Clock::time_point) override {
    if (padded_ != nullptr) *padded_ += bytes;
  }

 private:
  Backlog& now_;
  std::size_t* padded_;
};

struct NoFlush final : io::Deferred {
  void run_deferred() override {}
};

// Counts what a gate reports.
struct CountingReport final : GateReport {
  void window_cannot_show_frames() override { ++loose; }
  void padded(std::size_t bytes) override { padding += bytes; }
  int loose = 0;
  std::size_t padding = 0;
};

// A gate of one frame whose backlog the test sets, made at t0.
struct ScriptedGate : ::testing::Test {
  io::Loop loop;
  GateChecks checks{loop};
  NoFlush flusher;
  buf::Pool pool{{.block_count = 64, .block_size = 4096, .reserve = 4}};
  GateFrames frames = sse_frames(pool);
  Backlog backlog;
  Clock::time_point t0 = Clock::now();
  CountingReport report;
  std::size_t padding_spent = 0;
  std::unique_ptr<LatencyGate> gate = LatencyGate::make(std::make_unique<ScriptedBacklog>(backlog, &padding_spent),
                                                        {.window_frames = 1, .report = &report}, checks, flusher,
                                                        frames, t0);
};

// On a path whose round trip is long against a frame's time on it, the
// next frame goes while the last one's tail is on its way: bytes the path
// delivers within a round trip count as read; bytes the reader's kernel
// holds unread, or that wait unsent, do not.
TEST_F(ScriptedGate, LetsTheNextFrameGoWhileTheLastOnesTailIsArriving) {
  ASSERT_NE(gate, nullptr);
  constexpr std::size_t kFrame = 64 << 10;
  OutQueue queue;
  ASSERT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, std::string(kFrame, 'a'))), EnqueueStatus::ok);
  // Nothing outstanding: the first frame goes whole.
  DataAllowance allowance = gate->plan(t0, queue);
  EXPECT_FALSE(gate->holding());
  EXPECT_TRUE(allowance.one_frame);
  (void)queue.remove_pending(0);
  gate->flushed(t0, {.status = FlushStatus::drained, .bytes = kFrame}, kFrame);
  ASSERT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, std::string(kFrame, 'b'))), EnqueueStatus::ok);

  // 20,000 bytes of the first frame on the path, none counted as arriving.
  backlog = {.in_flight = 20'000, .unread = 0, .arriving = 0};
  (void)gate->plan(t0 + 1ms, queue);
  EXPECT_TRUE(gate->holding());
  // The path delivers 15,000 of them within a round trip: 5,000 still count.
  backlog.arriving = 15'000;
  (void)gate->plan(t0 + 2ms, queue);
  EXPECT_TRUE(gate->holding());
  // All of them within a round trip: the next frame goes.
  backlog = {.in_flight = 12'000, .unread = 0, .arriving = 12'000};
  allowance = gate->plan(t0 + 3ms, queue);
  EXPECT_FALSE(gate->holding());
  EXPECT_TRUE(allowance.one_frame);
  // But not while the reader has bytes of it unread.
  backlog = {.in_flight = 12'000, .unread = 4'000, .arriving = 12'000};
  (void)gate->plan(t0 + 4ms, queue);
  EXPECT_TRUE(gate->holding());
}

// Takes every byte, as a socket with room does.
struct TakeAll final : Writer {
  long writev(const struct iovec* iov, int count) override {
    if (shut) return -EAGAIN;
    long taken = 0;
    for (int i = 0; i < count; ++i) taken += static_cast<long>(iov[i].iov_len);
    return taken;
  }
  bool shut = false;  // takes nothing, as a socket that is full
};

// A gate on a reader whose window moves in 1 KiB steps (an autotuned
// buffer), fed 89-byte frames: the kernel says everything is read, always.
// The gate's asks are answered by the test, as a WebSocket client answers
// pings once it has read what came before them; a reader that `answers` no
// ask is given none (an SSE reader).
struct BlindReader {
  explicit BlindReader(std::size_t window_unit = 1024, std::chrono::microseconds round_trip = 0us,
                       std::size_t frame_bytes = kFrame, bool answers = true)
      : frame(frame_bytes) {
    backlog.window_unit = window_unit;
    backlog.round_trip = round_trip;
    gate = LatencyGate::make(std::make_unique<ScriptedBacklog>(backlog), {.window_frames = 1, .report = &report},
                             checks, flusher, sse_frames(pool), t0);
    if (answers) gate->ask_receipts(buf::make_frame(pool, buf::Lane::control, "ask"));
  }
  // Queues a frame and flushes as a Connection does; true when the flush
  // held data back. `asked` tells whether the flush wrote an ask.
  bool publish_and_flush(Clock::time_point now, bool* asked = nullptr) {
    EXPECT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, std::string(frame, 'e'))), EnqueueStatus::ok);
    return flush(now, asked);
  }
  bool flush(Clock::time_point now, bool* asked = nullptr) {
    const DataAllowance allowance = gate->plan(now, queue);
    const bool held = gate->holding();
    const std::size_t controls = queue.control_frames();
    const std::size_t data_before = queue.data_bytes();
    const FlushResult result = queue.flush(writer, allowance);
    gate->flushed(now, result, data_before - queue.data_bytes());
    if (asked != nullptr) *asked = controls > 0;
    return held;
  }
  static constexpr std::size_t kFrame = 89;
  const std::size_t frame;
  io::Loop loop;
  GateChecks checks{loop};
  NoFlush flusher;
  buf::Pool pool{{.block_count = 256, .block_size = 4096, .reserve = 4}};
  Backlog backlog;
  const Clock::time_point t0 = Clock::now();
  CountingReport report;
  std::unique_ptr<LatencyGate> gate;
  OutQueue queue;
  TakeAll writer;
};

// A reader whose window's edge stood still is sent the padding its
// backlog asks for, while the gate holds its data: wide frames while they
// fit in it, narrow ones for the rest, in at most half the control lane;
// and nothing to a reader whose data goes.
TEST_F(ScriptedGate, SendsThePaddingItsReaderAsksForInWholeFramesWhileItHolds) {
  ASSERT_NE(gate, nullptr);
  OutQueue queue;
  ASSERT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, std::string(1000, 'a'))), EnqueueStatus::ok);
  (void)gate->plan(t0, queue);
  (void)queue.remove_pending(0);
  gate->flushed(t0, {.status = FlushStatus::drained, .bytes = 1000}, 1000);
  ASSERT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, std::string(1000, 'b'))), EnqueueStatus::ok);

  // 1,000 bytes unread, and 1,100 of padding asked for: two wide frames
  // (512 each) and two narrow (64), then the probe.
  backlog = {.in_flight = 0, .unread = 1000, .padding = 1100};
  (void)gate->plan(t0 + 1ms, queue);
  EXPECT_TRUE(gate->holding());
  EXPECT_EQ(queue.control_frames(), 5u);
  EXPECT_EQ(queue.control_bytes_ahead(), 2 * frames.wide_padding.size() + 2 * frames.padding.size() + 1);
  // Each byte of it is told, and spent from the budget; the probe's not.
  EXPECT_EQ(report.padding, queue.control_bytes_ahead() - 1);
  EXPECT_EQ(padding_spent, report.padding);

  // Short of a wide frame by less than a narrow one: one wide frame.
  OutQueue one;
  ASSERT_EQ(one.push_data(buf::make_frame(pool, buf::Lane::data, std::string(1000, 'e'))), EnqueueStatus::ok);
  backlog = {.in_flight = 0, .unread = 1000, .padding = frames.wide_padding.size() - frames.padding.size() + 1};
  (void)gate->plan(t0 + 15ms, one);
  EXPECT_TRUE(gate->holding());
  EXPECT_EQ(one.control_bytes_ahead(), frames.wide_padding.size() + 1);  // and the probe

  // As much as a window of 100 KiB: half the control lane, then the probe.
  OutQueue lots;
  ASSERT_EQ(lots.push_data(buf::make_frame(pool, buf::Lane::data, std::string(1000, 'c'))), EnqueueStatus::ok);
  backlog = {.in_flight = 0, .unread = 1000, .padding = 100 << 10};
  const std::size_t told = report.padding;
  (void)gate->plan(t0 + 30ms, lots);
  EXPECT_TRUE(gate->holding());
  EXPECT_EQ(lots.control_frames(), lots.limits().max_control_frames / 2 + 1);
  // Less than was asked went, and that is what is told and spent.
  EXPECT_EQ(report.padding - told, lots.control_bytes_ahead() - 1);
  EXPECT_EQ(padding_spent, report.padding);

  // The reader read everything: its frame goes, and no padding with it.
  OutQueue going;
  ASSERT_EQ(going.push_data(buf::make_frame(pool, buf::Lane::data, std::string(1000, 'd'))), EnqueueStatus::ok);
  backlog = {.in_flight = 0, .unread = 0, .padding = 1100};
  const std::size_t told_before = report.padding;
  (void)gate->plan(t0 + 60ms, going);
  EXPECT_FALSE(gate->holding());
  EXPECT_EQ(going.control_frames(), 0u);
  EXPECT_EQ(report.padding, told_before);
}

// A reader whose window cannot show its frames and who cannot be asked is
// held only to the window's rounding: that is reported, once. Not when the
// reader is asked, nor when the window shows the frames or the path is long
// enough that it bounds them anyway.
TEST(LatencyGate, AReaderNeitherItsWindowNorItsAnswersCanShowBehindIsReportedOnce) {
  BlindReader unasked(1024, 0us, BlindReader::kFrame, false);
  BlindReader asked;
  BlindReader window_shows(32, 0us, BlindReader::kFrame, false);
  BlindReader long_path(1024, 40ms, BlindReader::kFrame, false);
  for (BlindReader* reader : {&unasked, &asked, &window_shows, &long_path}) {
    ASSERT_NE(reader->gate, nullptr);
    for (int i = 0; i < 20; ++i) (void)reader->publish_and_flush(reader->t0 + i * 2ms);
  }
  EXPECT_EQ(unasked.report.loose, 1);
  EXPECT_EQ(asked.report.loose, 0);
  EXPECT_EQ(window_shows.report.loose, 0);
  EXPECT_EQ(long_path.report.loose, 0);
}

// A reader that does not answer within the grace period is behind: what
// was written since its last answer counts as unread though its window
// shows nothing, and the gate holds to the window until it answers.
TEST(LatencyGate, AReaderWhoseWindowCannotShowSmallFramesIsHeldByItsAnswers) {
  BlindReader reader;
  ASSERT_NE(reader.gate, nullptr);
  bool asked = false;
  EXPECT_FALSE(reader.publish_and_flush(reader.t0, &asked));
  EXPECT_FALSE(asked);  // nothing written yet to ask about
  EXPECT_TRUE(reader.gate->window_blind());
  // The next frame carries an ask about the first.
  EXPECT_FALSE(reader.publish_and_flush(reader.t0 + 1ms, &asked));
  EXPECT_TRUE(asked);
  // No answer within the grace period (20 ms): the window is not trusted,
  // and two frames unanswered pass a window of one.
  EXPECT_TRUE(reader.publish_and_flush(reader.t0 + 30ms));
  EXPECT_TRUE(reader.gate->lagging());
  EXPECT_TRUE(reader.flush(reader.t0 + 40ms));
  // The answer, late: the first frame is read, the second is not yet,
  // which fills the window; the gate asks about it at once.
  reader.gate->receipt(reader.t0 + 50ms);
  EXPECT_TRUE(reader.gate->lagging());
  EXPECT_TRUE(reader.flush(reader.t0 + 51ms, &asked));
  EXPECT_TRUE(asked);
  EXPECT_EQ(reader.queue.data_frames(), 1u);
  // Answered, late again: the held frame goes, and an ask follows it in
  // the next flush (the gate has its connection flushed for that).
  reader.gate->receipt(reader.t0 + 120ms);
  EXPECT_FALSE(reader.flush(reader.t0 + 120ms));
  EXPECT_EQ(reader.queue.data_frames(), 0u);
  (void)reader.flush(reader.t0 + 121ms, &asked);
  EXPECT_TRUE(asked);
  // One ask outstanding at most: more frames ask nothing more.
  EXPECT_TRUE(reader.publish_and_flush(reader.t0 + 125ms, &asked));
  EXPECT_FALSE(asked);
  // Answers in time, each asked right after a release, for a whole ask
  // interval (100 ms): the reader keeps up, and its window is trusted
  // again. Until then it is held by its answers.
  auto now = reader.t0 + 125ms;
  for (int i = 0; i < 30; ++i) {
    now += 2ms;
    reader.gate->receipt(now);
    EXPECT_FALSE(reader.flush(now));  // the frame answered for goes
    if (!reader.gate->lagging()) break;
    now += 1ms;
    (void)reader.flush(now, &asked);  // and an ask behind it
    ASSERT_TRUE(asked) << "answer " << i;
    now += 3ms;
    EXPECT_TRUE(reader.publish_and_flush(now));  // the next waits for that answer
  }
  EXPECT_FALSE(reader.gate->lagging());
  EXPECT_GE(now - (reader.t0 + 121ms), 100ms);  // from the first ask answered in time
  reader.gate->receipt(now + 1ms);
  EXPECT_FALSE(reader.flush(now + 1ms));
  EXPECT_FALSE(reader.publish_and_flush(now + 2ms));
  EXPECT_EQ(reader.queue.data_frames(), 0u);
}

// A reader that answers in time is never held for an answer, and is asked
// at most once per 100 ms of data, never once per frame.
TEST(LatencyGate, AReaderThatAnswersInTimeIsNeverHeldAndSeldomAsked) {
  BlindReader reader;
  ASSERT_NE(reader.gate, nullptr);
  std::size_t asks = 0;
  std::size_t held = 0;
  constexpr int kFrames = 500;  // one every 2 ms: a second
  for (int i = 0; i < kFrames; ++i) {
    const auto now = reader.t0 + i * 2ms;
    bool asked = false;
    if (reader.publish_and_flush(now, &asked)) ++held;
    if (asked) {
      ++asks;
      reader.gate->receipt(now + 1ms);
    }
  }
  EXPECT_EQ(held, 0u);
  EXPECT_GE(asks, 5u);   // a reader that falls behind is seen
  EXPECT_LE(asks, 11u);  // 1 s of data, one ask per 100 ms and the first
  EXPECT_FALSE(reader.gate->lagging());
}

// Every answer takes the path's round trip: a reader that reads at once
// answers a round trip late, and is not behind for it.
TEST(LatencyGate, AnAnswerLateByThePathsRoundTripIsInTime) {
  BlindReader reader(1024, 10ms);
  ASSERT_NE(reader.gate, nullptr);
  bool asked = false;
  (void)reader.publish_and_flush(reader.t0);
  (void)reader.publish_and_flush(reader.t0 + 1ms, &asked);
  ASSERT_TRUE(asked);
  EXPECT_FALSE(reader.publish_and_flush(reader.t0 + 26ms));
  EXPECT_FALSE(reader.gate->lagging());
  reader.gate->receipt(reader.t0 + 27ms);  // 26 ms: within 20 and 10
  EXPECT_FALSE(reader.gate->lagging());
  // Later than the grace period and the round trip: behind.
  (void)reader.publish_and_flush(reader.t0 + 150ms, &asked);
  ASSERT_TRUE(asked);
  EXPECT_TRUE(reader.publish_and_flush(reader.t0 + 185ms));
  EXPECT_TRUE(reader.gate->lagging());
}

// Over a path whose round trip is the grace period or longer the window
// bounds such readers already: nobody is asked.
TEST(LatencyGate, AReaderOnALongPathIsNotAsked) {
  BlindReader reader(1024, 40ms);
  ASSERT_NE(reader.gate, nullptr);
  for (int i = 0; i < 300; ++i) {
    bool asked = false;
    EXPECT_FALSE(reader.publish_and_flush(reader.t0 + i * 2ms, &asked));
    ASSERT_FALSE(asked) << "frame " << i;
  }
}

// A window that moves in steps no larger than half the writes shows them
// unread: the gate trusts it and never asks.
TEST(LatencyGate, AReaderWhoseWindowShowsEachFrameIsNotAsked) {
  BlindReader reader(32);  // under half a frame
  ASSERT_NE(reader.gate, nullptr);
  for (int i = 0; i < 300; ++i) {
    bool asked = false;
    (void)reader.publish_and_flush(reader.t0 + i * 2ms, &asked);
    ASSERT_FALSE(asked) << "frame " << i;
  }
  EXPECT_FALSE(reader.gate->window_blind());
}

// A frame of about a step (1 KiB against 1 KiB) can hide whole in the
// window's rounding: the reader is asked too, and one that does not answer
// is held by its answers as one of small frames is. A frame of two steps or
// more shows in the window, and nobody is asked.
TEST(LatencyGate, AWindowInStepsAboutAFrameLongIsAskedAndAWindowInStepsUnderHalfAFrameIsNot) {
  BlindReader step_frames(1024, 0us, 1030);
  ASSERT_NE(step_frames.gate, nullptr);
  bool asked = false;
  EXPECT_FALSE(step_frames.publish_and_flush(step_frames.t0));
  EXPECT_TRUE(step_frames.gate->window_blind());
  EXPECT_FALSE(step_frames.publish_and_flush(step_frames.t0 + 1ms, &asked));
  EXPECT_TRUE(asked);
  EXPECT_TRUE(step_frames.publish_and_flush(step_frames.t0 + 30ms));  // no answer within the grace period
  EXPECT_TRUE(step_frames.gate->lagging());

  BlindReader large_frames(1024, 0us, 2048);
  ASSERT_NE(large_frames.gate, nullptr);
  for (int i = 0; i < 300; ++i) {
    (void)large_frames.publish_and_flush(large_frames.t0 + i * 2ms, &asked);
    ASSERT_FALSE(asked) << "frame " << i;
  }
  EXPECT_FALSE(large_frames.gate->window_blind());
}

// A reader of `kFrame`-byte frames through a window that shows each of
// them, which grew its allowance to four frames by reading everything it
// was sent, and then was sent four more at `t0 + 3ms`.
struct GrownReader : BlindReader {
  explicit GrownReader(std::chrono::microseconds round_trip) : BlindReader(1, round_trip) {
    backlog.room = 1 << 20;
    (void)publish_and_flush(t0);
    for (int look = 1; look <= 3; ++look) {
      for (int i = 0; i < 2; ++i) {
        EXPECT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, std::string(kFrame, 'e'))),
                  EnqueueStatus::ok);
      }
      EXPECT_FALSE(flush(t0 + look * 1ms));
    }
    EXPECT_EQ(gate->grown_allowance(), 4 * kFrame);
  }
  // What the reader's kernel tells now; the path stays as it was.
  void kernel_says(std::size_t in_flight, std::size_t unread) {
    backlog.in_flight = in_flight;
    backlog.unread = unread;
  }
  // With the four frames unacknowledged and nothing unread, a frame
  // published at `at` past the grace period: it was held, and asked about.
  bool held_and_asked_on_its_ack(Clock::time_point at) {
    kernel_says(4 * kFrame, 0);
    bool asked = false;
    const bool held = publish_and_flush(at, &asked);
    return held && asked;
  }
};

// Data only its missing ACK calls unread, past the grace period on a short
// path, with everything acknowledged read, may well be read: the reader's
// kernel is waiting out its delayed-ACK timer. The reader keeps the
// allowance it grew and is asked; the answer brings the ACK. Once the ACK
// shows the data unread, or over a path long enough for it to be on its
// way, the reader is behind as before.
TEST(LatencyGate, DataOnlyItsAckCallsUnreadIsAskedAboutBeforeTheReaderIsTakenForBehind) {
  constexpr std::size_t kGrown = 4 * BlindReader::kFrame;
  GrownReader read(0us);
  EXPECT_TRUE(read.held_and_asked_on_its_ack(read.t0 + 30ms));
  EXPECT_EQ(read.gate->grown_allowance(), kGrown);
  // The answer: its segment acknowledged everything, all of it read.
  read.kernel_says(0, 0);
  read.gate->receipt(read.t0 + 31ms);
  EXPECT_FALSE(read.flush(read.t0 + 31ms));
  EXPECT_EQ(read.queue.data_frames(), 0u);
  EXPECT_GE(read.gate->grown_allowance(), kGrown);

  GrownReader unread(0us);
  EXPECT_TRUE(unread.held_and_asked_on_its_ack(unread.t0 + 30ms));
  // No answer, and the reader's kernel acknowledges (its timer went): the
  // data is there unread, and the reader is behind.
  unread.kernel_says(0, kGrown);
  EXPECT_TRUE(unread.flush(unread.t0 + 45ms));
  EXPECT_EQ(unread.gate->grown_allowance(), 0u);

  // No answer, and the reader's kernel still does not acknowledge (a
  // segment lost on the way): behind once the answer is late.
  GrownReader unanswered(0us);
  EXPECT_TRUE(unanswered.held_and_asked_on_its_ack(unanswered.t0 + 30ms));
  EXPECT_TRUE(unanswered.flush(unanswered.t0 + 45ms));
  EXPECT_EQ(unanswered.gate->grown_allowance(), kGrown);  // the answer is not late yet
  EXPECT_TRUE(unanswered.flush(unanswered.t0 + 55ms));
  EXPECT_EQ(unanswered.gate->grown_allowance(), 0u);

  GrownReader long_path(40ms);
  long_path.kernel_says(kGrown, 0);
  bool asked = false;
  EXPECT_TRUE(long_path.publish_and_flush(long_path.t0 + 30ms, &asked));
  EXPECT_FALSE(asked);
  EXPECT_EQ(long_path.gate->grown_allowance(), 0u);
}

// A reader that has shown it keeps up and has read everything takes a
// burst larger than its allowance whole (events that reached the loop in
// one tick), up to twice its allowance, as far as its kernel takes it now
// and up to the most a reader that keeps up may have outstanding. Not one
// with data unread.
TEST(LatencyGate, AReaderThatKeepsUpAndHasReadEverythingTakesABurstWhole) {
  constexpr std::size_t kFrame = BlindReader::kFrame;
  const auto push = [](BlindReader& reader, std::size_t frames, std::size_t size) {
    for (std::size_t i = 0; i < frames; ++i) {
      ASSERT_EQ(reader.queue.push_data(buf::make_frame(reader.pool, buf::Lane::data, std::string(size, 'e'))),
                EnqueueStatus::ok);
    }
  };
  GrownReader grown(0us);
  push(grown, 10, kFrame);
  EXPECT_FALSE(grown.flush(grown.t0 + 4ms));
  EXPECT_EQ(grown.queue.data_frames(), 0u);

  // Its kernel takes nine of them now: nine go, past its allowance (which
  // this look doubled to eight frames).
  GrownReader narrow(0us);
  narrow.backlog.room = 9 * kFrame;
  push(narrow, 10, kFrame);
  EXPECT_TRUE(narrow.flush(narrow.t0 + 4ms));
  EXPECT_EQ(narrow.gate->grown_allowance(), 8 * kFrame);
  EXPECT_EQ(narrow.queue.data_frames(), 1u);

  // Two frames unread: what is left of its allowance, two frames.
  GrownReader behind(0us);
  behind.kernel_says(0, 2 * kFrame);
  push(behind, 10, kFrame);
  EXPECT_TRUE(behind.flush(behind.t0 + 4ms));
  EXPECT_EQ(behind.queue.data_frames(), 8u);

  // Twenty waiting: sixteen go, twice the allowance this look grew it to.
  GrownReader many(0us);
  push(many, 20, kFrame);
  EXPECT_TRUE(many.flush(many.t0 + 4ms));
  EXPECT_EQ(many.gate->grown_allowance(), 8 * kFrame);
  EXPECT_EQ(many.queue.data_frames(), 4u);

  // 320 KiB waiting: 256 KiB of it goes.
  GrownReader large(0us);
  push(large, 5, 64 << 10);
  EXPECT_TRUE(large.flush(large.t0 + 4ms));
  EXPECT_EQ(large.queue.data_frames(), 1u);
}

// The reader's answer says it read every byte before the ask, whatever its
// window shows: a window a step short of the largest it offered (its
// kernel sends no update for a small read) holds nothing back, and the
// reader that answered keeps up.
TEST(LatencyGate, AReaderThatAnsweredForWhatItWasSentIsNotHeldByItsWindow) {
  BlindReader reader;  // an autotuned buffer: its window moves in 1 KiB steps
  ASSERT_NE(reader.gate, nullptr);
  (void)reader.publish_and_flush(reader.t0);
  reader.backlog.in_flight = BlindReader::kFrame;  // its ACK waits
  bool asked = false;
  EXPECT_TRUE(reader.publish_and_flush(reader.t0 + 1ms, &asked));
  EXPECT_TRUE(asked);
  // Answered; the window is left a step short.
  reader.backlog.in_flight = 0;
  reader.backlog.unread = 1024;
  reader.gate->receipt(reader.t0 + 2ms);
  EXPECT_FALSE(reader.flush(reader.t0 + 2ms));
  EXPECT_EQ(reader.queue.data_frames(), 0u);
  EXPECT_EQ(reader.gate->grown_allowance(), 2 * BlindReader::kFrame);
}

// A reader that keeps up, held by a window a step short (its kernel sends
// no update for a small read) and its last frame not yet acknowledged, is
// asked at once, not at its next ask interval: the answer in time lets the
// held frame go. Waiting for the interval held fast readers up to 100 ms
// while `latest` replaced their frames.
TEST(LatencyGate, AReaderHeldByAWindowThatCannotShowItsFramesIsAskedAtOnce) {
  BlindReader reader;
  ASSERT_NE(reader.gate, nullptr);
  bool asked = false;
  (void)reader.publish_and_flush(reader.t0);
  ASSERT_FALSE(reader.publish_and_flush(reader.t0 + 1ms, &asked));
  ASSERT_TRUE(asked);
  reader.gate->receipt(reader.t0 + 2ms);
  reader.backlog.unread = 1024;
  reader.backlog.in_flight = BlindReader::kFrame;
  // Two frames in one tick, past what its allowance (grown to two frames)
  // leaves beside the one written since its answer: one goes, one is held.
  ASSERT_EQ(reader.queue.push_data(buf::make_frame(reader.pool, buf::Lane::data, std::string(reader.frame, 'e'))),
            EnqueueStatus::ok);
  EXPECT_TRUE(reader.publish_and_flush(reader.t0 + 3ms, &asked));
  EXPECT_TRUE(asked);
  EXPECT_EQ(reader.queue.data_frames(), 1u);
  reader.gate->receipt(reader.t0 + 4ms);
  EXPECT_FALSE(reader.flush(reader.t0 + 4ms));
  EXPECT_EQ(reader.queue.data_frames(), 0u);
  EXPECT_FALSE(reader.gate->lagging());
}

// Events that reach the loop in one tick (after a stall of its own), held
// from a reader that has shown it keeps up and answers in time, wait for
// its answer: they are not stale (the queue is not backed up by the hold,
// so `latest` keeps them), and the answer lets them go. Stale are what is
// held once the answer is late (the reader is behind), what is still held
// once it came (the reader is slower than its events), what is held from a
// reader that has not shown it keeps up, and from one that cannot be asked
// (SSE over HTTP/1.1).
TEST(LatencyGate, ABurstHeldWhileAReaderThatKeepsUpIsAskedWaitsForTheAnswer) {
  const auto burst = [](BlindReader& reader, int frames) {
    for (int i = 0; i < frames; ++i) {
      ASSERT_EQ(reader.queue.push_data(buf::make_frame(reader.pool, buf::Lane::data, std::string(reader.frame, 'e'))),
                EnqueueStatus::ok);
    }
  };
  // Two frames read and answered for: its allowance grows to two frames.
  const auto kept_up = [](BlindReader& reader) {
    (void)reader.publish_and_flush(reader.t0);
    (void)reader.publish_and_flush(reader.t0 + 1ms);
    reader.gate->receipt(reader.t0 + 2ms);
    EXPECT_GT(reader.gate->grown_allowance(), 0u);
  };
  // Four frames in one tick, the window left a step short and the last
  // frame not yet acknowledged: some go, the rest wait, and it is asked.
  const auto held_and_asked = [&burst](BlindReader& reader) {
    reader.backlog.unread = 1024;
    reader.backlog.in_flight = BlindReader::kFrame;
    burst(reader, 4);
    bool asked = false;
    EXPECT_TRUE(reader.flush(reader.t0 + 3ms, &asked));
    EXPECT_TRUE(asked);
  };
  const auto answered = [](BlindReader& reader, Clock::time_point at) {
    reader.backlog.unread = 0;
    reader.backlog.in_flight = 0;
    reader.gate->receipt(at);
  };
  BlindReader reader;
  ASSERT_NE(reader.gate, nullptr);
  kept_up(reader);
  held_and_asked(reader);
  EXPECT_FALSE(reader.queue.backed_up());
  answered(reader, reader.t0 + 4ms);
  EXPECT_FALSE(reader.flush(reader.t0 + 4ms));
  EXPECT_EQ(reader.queue.data_frames(), 0u);
  EXPECT_FALSE(reader.gate->lagging());

  BlindReader late;
  kept_up(late);
  held_and_asked(late);
  EXPECT_FALSE(late.queue.backed_up());
  EXPECT_TRUE(late.flush(late.t0 + 30ms));  // past the grace period, unanswered
  EXPECT_TRUE(late.gate->lagging());
  EXPECT_TRUE(late.queue.backed_up());

  // Answered in time, and still held: the window shows what went after
  // the ask unread. A reader slower than its events, if not than the clock.
  BlindReader slower;
  kept_up(slower);
  held_and_asked(slower);
  slower.gate->receipt(slower.t0 + 4ms);
  EXPECT_TRUE(slower.flush(slower.t0 + 4ms));
  EXPECT_FALSE(slower.gate->lagging());
  EXPECT_TRUE(slower.queue.backed_up());

  // More than it takes at once once it has read everything (twice its
  // allowance), or data unread past a step of its window: nothing an
  // answer would let go whole.
  BlindReader more;
  kept_up(more);
  more.backlog.unread = 1024;
  more.backlog.in_flight = BlindReader::kFrame;
  burst(more, 20);
  EXPECT_TRUE(more.flush(more.t0 + 3ms));
  EXPECT_TRUE(more.queue.backed_up());
  BlindReader unread;
  kept_up(unread);
  unread.backlog.unread = 3 * 1024;
  unread.backlog.in_flight = BlindReader::kFrame;
  burst(unread, 4);
  EXPECT_TRUE(unread.flush(unread.t0 + 3ms));
  EXPECT_TRUE(unread.queue.backed_up());

  BlindReader fresh;
  burst(fresh, 3);
  EXPECT_TRUE(fresh.flush(fresh.t0));
  EXPECT_TRUE(fresh.queue.backed_up());

  BlindReader unasked(1024, 0us, BlindReader::kFrame, false);
  kept_up(unasked);
  unasked.backlog.in_flight = BlindReader::kFrame;  // its ACK may be delayed, and nobody asks
  burst(unasked, 4);
  EXPECT_TRUE(unasked.flush(unasked.t0 + 3ms));
  EXPECT_TRUE(unasked.queue.backed_up());
}

// A held reader is asked about data written since its last answer, never
// about nothing: a stream its client lets no data into (an HTTP/2 window
// of 0) stays held, and asked once per answer it would be sent a PING
// every round trip with nothing moving.
TEST(LatencyGate, AHeldReaderIsNotAskedWhileNothingWentSinceItsLastAnswer) {
  BlindReader reader;
  ASSERT_NE(reader.gate, nullptr);
  reader.writer.shut = true;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(reader.queue.push_data(buf::make_frame(reader.pool, buf::Lane::data, std::string(reader.frame, 'e'))),
              EnqueueStatus::ok);
  }
  for (int i = 0; i < 5; ++i) {
    bool asked = false;
    EXPECT_TRUE(reader.flush(reader.t0 + i * 1ms, &asked));
    EXPECT_FALSE(asked) << i;
    reader.gate->receipt(reader.t0 + i * 1ms);  // as if each ask had been answered at once
  }
  EXPECT_EQ(reader.queue.data_frames(), 3u);
}

// An answer nobody asked for (a client's own pong) changes nothing.
TEST(LatencyGate, AnAnswerToNoAskChangesNothing) {
  BlindReader reader;
  ASSERT_NE(reader.gate, nullptr);
  bool asked = false;
  (void)reader.publish_and_flush(reader.t0);
  (void)reader.publish_and_flush(reader.t0 + 1ms, &asked);
  ASSERT_TRUE(asked);
  reader.gate->receipt(reader.t0 + 30ms);  // late: behind
  ASSERT_TRUE(reader.gate->lagging());
  reader.gate->receipt(reader.t0 + 31ms);  // nothing outstanding
  EXPECT_TRUE(reader.gate->lagging());
}

TEST(LatencyGate, IsNotPutOnASocketTheKernelSaysNothingAbout) {
  io::Loop loop;
  GateChecks checks(loop);
  buf::Pool pool({.block_count = 16, .block_size = 4096, .reserve = 4});
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
  AnsweredConnection connection(loop, std::make_unique<transport::PlainTcp>(fds[0]), {});
  ASSERT_EQ(connection.start(), 0);
  EXPECT_FALSE(connection.bound_unread({}, checks, sse_frames(pool)));
  EXPECT_EQ(connection.latency_gate(), nullptr);
  // Without one, a flush writes everything, as before.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(connection.send_data(buf::make_frame(pool, buf::Lane::data, "frame")), EnqueueStatus::ok);
  }
  loop.run_once(0);
  EXPECT_TRUE(connection.queue().empty());
  char got[64];
  EXPECT_EQ(::read(fds[1], got, sizeof got), 15);
  ::close(fds[1]);
}

}  // namespace
}  // namespace sluice::conn
