#include "conn/out_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace sluice::conn {
namespace {

// Takes a scripted number of bytes per call (0: -EAGAIN, negative: that
// error), then everything once the script runs out; keeps what it took.
class ScriptedWriter final : public Writer {
 public:
  long writev(const struct iovec* iov, int count) override {
    ++calls;
    EXPECT_GT(count, 0);
    EXPECT_LE(count, kMaxGather);
    max_count = std::max(max_count, count);
    long limit = LONG_MAX;
    if (!script.empty()) {
      limit = script.front();
      script.pop_front();
    }
    if (limit == 0) return -EAGAIN;
    if (limit < 0) return limit;
    return take(iov, count, static_cast<std::size_t>(limit));
  }
  void frame_started(const buf::FrameRef& frame) override { started.push_back(frame.size()); }

  std::deque<long> script;
  std::vector<std::size_t> started;  // sizes of the frames frame_started named, in order
  std::string stream;
  std::size_t calls = 0;
  int max_count = 0;

 private:
  long take(const struct iovec* iov, int count, std::size_t limit) {
    std::size_t taken = 0;
    for (int i = 0; i < count && taken < limit; ++i) {
      const std::size_t n = std::min(iov[i].iov_len, limit - taken);
      stream.append(static_cast<const char*>(iov[i].iov_base), n);
      taken += n;
    }
    return static_cast<long>(taken);
  }
};

// A frame names itself in a header, "<D12:100>", then fills up to `size`
// bytes with a pattern of its own, so a stream can be cut back into frames.
std::string frame_text(char lane, int id, std::size_t size) {
  std::string text = "<" + std::string(1, lane) + std::to_string(id) + ":" + std::to_string(size) + ">";
  EXPECT_LE(text.size(), size);
  while (text.size() < size) text += static_cast<char>('a' + (static_cast<std::size_t>(id) * 7 + text.size()) % 26);
  return text;
}

struct Piece {
  char lane;
  int id;
  friend bool operator==(const Piece&, const Piece&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Piece& p) { return os << p.lane << p.id; }
};

// Cuts `stream` into frames, checking each is whole and exact.
std::vector<Piece> pieces_of(std::string_view stream) {
  std::vector<Piece> out;
  while (!stream.empty()) {
    char lane = 0;
    int id = 0;
    unsigned long size = 0;  // %lu, not %zu: a small C library may not know C99's z
    if (std::sscanf(std::string(stream.substr(0, 32)).c_str(), "<%c%d:%lu>", &lane, &id, &size) != 3 ||
        size > stream.size() || stream.substr(0, size) != frame_text(lane, id, size)) {
      ADD_FAILURE() << "stream corrupt at: " << stream.substr(0, 40);
      return out;
    }
    out.push_back({lane, id});
    stream.remove_prefix(size);
  }
  return out;
}

constexpr std::size_t kBlock = 64;

class OutQueueTest : public testing::Test {
 protected:
  buf::FrameRef frame(char lane, int id, std::size_t size) {
    return buf::make_frame(pool, lane == 'C' ? buf::Lane::control : buf::Lane::data, frame_text(lane, id, size));
  }
  void data(OutQueue& q, int id, std::size_t size) { ASSERT_EQ(q.push_data(frame('D', id, size)), EnqueueStatus::ok); }
  void control(OutQueue& q, int id, std::size_t size) {
    ASSERT_EQ(q.push_control(frame('C', id, size)), EnqueueStatus::ok);
  }
  // Flushes until drained; the writer's script decides the cuts.
  FlushResult drain(OutQueue& q) {
    FlushResult total{FlushStatus::blocked};
    for (int i = 0; i < 100000 && total.status != FlushStatus::drained; ++i) {
      const FlushResult r = q.flush(writer);
      EXPECT_NE(r.status, FlushStatus::error);
      if (r.status == FlushStatus::error) return r;
      total = {r.status, total.bytes + r.bytes, total.calls + r.calls, total.frames_completed + r.frames_completed};
    }
    return total;
  }
  bool pool_full() const { return pool.free_blocks() == pool.stats().block_count; }
  // Has the reader take exactly `bytes`, in as many flushes as the gather
  // limit needs (a small target gathers fewer iovecs a call); returns what
  // it took.
  std::size_t take(OutQueue& q, std::size_t bytes) {
    std::size_t taken = 0;
    for (int i = 0; i < 100000 && taken < bytes; ++i) {
      writer.script = {static_cast<long>(bytes - taken), 0};
      const std::size_t got = q.flush(writer).bytes;
      if (got == 0) break;
      taken += got;
    }
    return taken;
  }

  buf::Pool pool{{.block_count = 4096, .block_size = kBlock, .reserve = 0}};
  ScriptedWriter writer;
};

TEST_F(OutQueueTest, SendsEverythingInOneCallWhenTheWriterTakesAll) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 20);
  control(q, 0, 30);
  const FlushResult r = q.flush(writer);
  EXPECT_EQ(r.status, FlushStatus::drained);
  EXPECT_EQ(r.calls, 1u);
  EXPECT_EQ(r.bytes, 150u);
  EXPECT_EQ(r.frames_completed, 3u);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'D', 0}, {'D', 1}}));
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(pool_full());
}

// A flush's data allowance (the latency gate's): whole data frames, in
// order, up to its bytes; control frames and a frame in flight always go.

TEST_F(OutQueueTest, AnAllowanceStopsAtTheFirstFrameItCannotTakeWhole) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 100);
  data(q, 2, 100);
  control(q, 0, 30);
  const FlushResult r = q.flush(writer, {.bytes = 250, .one_frame = false});
  EXPECT_EQ(r.status, FlushStatus::held);
  EXPECT_EQ(r.bytes, 230u);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'D', 0}, {'D', 1}}));
  EXPECT_EQ(q.pending_data(), 1u);
  EXPECT_EQ(q.flush(writer).status, FlushStatus::drained);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'D', 0}, {'D', 1}, {'D', 2}}));
}

TEST_F(OutQueueTest, OneFrameGoesWholeHoweverSmallTheAllowance) {
  OutQueue q;
  data(q, 0, 300);
  data(q, 1, 10);
  const FlushResult r = q.flush(writer, {.bytes = 10, .one_frame = true});
  EXPECT_EQ(r.status, FlushStatus::held);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}}));
}

TEST_F(OutQueueTest, ANilAllowanceStillSendsControlFrames) {
  OutQueue q;
  data(q, 0, 50);
  control(q, 0, 20);
  control(q, 1, 20);
  const FlushResult r = q.flush(writer, {.bytes = 0, .one_frame = false});
  EXPECT_EQ(r.status, FlushStatus::held);
  EXPECT_EQ(r.frames_completed, 2u);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'C', 1}}));
  // Held, and nothing to write: no system call at all.
  const std::size_t calls = writer.calls;
  EXPECT_EQ(q.flush(writer, {.bytes = 0, .one_frame = false}).status, FlushStatus::held);
  EXPECT_EQ(writer.calls, calls);
}

TEST_F(OutQueueTest, AFrameInFlightIsNeverHeld) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 100);
  writer.script = {40};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  const FlushResult r = q.flush(writer, {.bytes = 0, .one_frame = false});
  EXPECT_EQ(r.status, FlushStatus::held);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}}));
}

TEST_F(OutQueueTest, AnAllowanceSpansTheWritesOfOneFlush) {
  OutQueue q({.max_bytes = 1 << 20, .max_frames = 4096, .max_control_frames = 16});
  // More frames than one writev takes (IOV_MAX iovecs), so the allowance
  // runs over several calls.
  constexpr int kFrames = 3000;
  for (int id = 0; id < kFrames; ++id) data(q, id, 20);
  const FlushResult r = q.flush(writer, {.bytes = 2500 * 20, .one_frame = false});
  EXPECT_EQ(r.status, FlushStatus::held);
  EXPECT_GT(r.calls, 1u);
  EXPECT_EQ(r.frames_completed, 2500u);
  EXPECT_EQ(q.pending_data(), 500u);
}

TEST_F(OutQueueTest, ResumesAfterACutAtEveryByte) {
  // Cuts land in headers, mid-block, on block edges (64, 128) and exactly
  // on frame edges (100, 170).
  const std::string expected = frame_text('D', 0, 100) + frame_text('D', 1, 70) + frame_text('D', 2, 20);
  for (std::size_t cut = 1; cut < expected.size(); ++cut) {
    OutQueue q;
    data(q, 0, 100);
    data(q, 1, 70);
    data(q, 2, 20);
    writer = {};
    writer.script = {static_cast<long>(cut)};
    const FlushResult first = q.flush(writer);
    EXPECT_EQ(first.status, FlushStatus::blocked);
    EXPECT_EQ(first.bytes, cut);
    EXPECT_EQ(first.frames_completed, (cut >= 100) + (cut >= 170));
    EXPECT_EQ(q.data_bytes(), expected.size() - cut);
    EXPECT_EQ(q.flush(writer).status, FlushStatus::drained);
    ASSERT_EQ(writer.stream, expected) << "cut at " << cut;
    EXPECT_TRUE(pool_full());
  }
}

TEST_F(OutQueueTest, ScriptedCutsOfOneByteAndEagain) {
  OutQueue q;
  for (int id = 0; id < 5; ++id) data(q, id, 40 + 30 * static_cast<std::size_t>(id));
  writer.script = {1, 0, 1, 1, 3, 0, 64, 0, 60, 1, 0, 200};
  const FlushResult total = drain(q);
  EXPECT_EQ(total.status, FlushStatus::drained);
  EXPECT_EQ(total.frames_completed, 5u);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'D', 1}, {'D', 2}, {'D', 3}, {'D', 4}}));
}

TEST_F(OutQueueTest, EagainWritesNothingAndStartsNothing) {
  OutQueue q;
  data(q, 0, 50);
  writer.script = {0};
  const FlushResult r = q.flush(writer);
  EXPECT_EQ(r.status, FlushStatus::blocked);
  EXPECT_EQ(r.calls, 1u);
  EXPECT_EQ(r.bytes, 0u);
  // Nothing of D0 is on the wire, so a control frame still goes first.
  control(q, 0, 20);
  EXPECT_EQ(q.flush(writer).status, FlushStatus::drained);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'D', 0}}));
}

TEST_F(OutQueueTest, ReleasesEachFrameExactlyWhenItsLastByteIsTaken) {
  OutQueue q;
  data(q, 0, 200);  // 4 blocks
  data(q, 1, 20);   // 1 block
  const std::size_t total = pool.stats().block_count;
  writer.script = {199, 1, 19};
  EXPECT_EQ(q.flush(writer).frames_completed, 0u);
  EXPECT_EQ(pool.free_blocks(), total - 5);
  EXPECT_EQ(q.flush(writer).frames_completed, 1u);
  EXPECT_EQ(pool.free_blocks(), total - 1);
  EXPECT_EQ(q.flush(writer).frames_completed, 0u);
  EXPECT_EQ(pool.free_blocks(), total - 1);
  EXPECT_EQ(q.flush(writer).frames_completed, 1u);
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, ASharedFrameLivesUntilEveryQueueWroteIt) {
  OutQueue a;
  OutQueue b;
  buf::FrameRef shared = frame('D', 0, 100);
  ASSERT_EQ(a.push_data(shared), EnqueueStatus::ok);
  ASSERT_EQ(b.push_data(std::move(shared)), EnqueueStatus::ok);
  EXPECT_EQ(a.flush(writer).status, FlushStatus::drained);
  EXPECT_FALSE(pool_full());
  EXPECT_EQ(b.flush(writer).status, FlushStatus::drained);
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, ControlOvertakesDataThatHasNotStarted) {
  OutQueue q;
  data(q, 0, 50);
  data(q, 1, 50);
  control(q, 0, 20);
  control(q, 1, 20);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'C', 1}, {'D', 0}, {'D', 1}}));
}

TEST_F(OutQueueTest, ControlNeverSplitsAStartedDataFrame) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 50);
  writer.script = {5};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  control(q, 0, 20);
  control(q, 1, 20);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'C', 0}, {'C', 1}, {'D', 1}}));
}

TEST_F(OutQueueTest, TheWriterHearsOfEachFrameWhenItsFirstByteIsTaken) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 50);
  writer.script = {5, 0};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(writer.started, (std::vector<std::size_t>{100}));
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);  // -EAGAIN: nothing new started
  EXPECT_EQ(writer.started, (std::vector<std::size_t>{100}));
  control(q, 0, 20);
  control(q, 1, 30);
  drain(q);
  EXPECT_EQ(writer.started, (std::vector<std::size_t>{100, 20, 30, 50}));
}

TEST_F(OutQueueTest, ControlBytesAheadAreTheFrameInFlightAndTheControlLane) {
  OutQueue q;
  EXPECT_EQ(q.control_bytes_ahead(), 0u);
  data(q, 0, 100);
  data(q, 1, 50);
  EXPECT_EQ(q.control_bytes_ahead(), 0u);  // data only: nothing to let ahead
  writer.script = {5};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.control_bytes_ahead(), 0u);
  control(q, 0, 20);
  control(q, 1, 30);
  EXPECT_EQ(q.control_bytes_ahead(), 95u + 20u + 30u);  // the control frames wait for the rest of D0
  writer.script = {95 + 25};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.control_bytes_ahead(), 25u);  // the rest of C1, in flight
  drain(q);
  EXPECT_EQ(q.control_bytes_ahead(), 0u);
}

TEST_F(OutQueueTest, ControlOvertakesAFrameThatWasOfferedButGotNoByte) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 50);
  writer.script = {100};  // D0 exactly; D1 was in the writev but got nothing
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  control(q, 0, 20);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'C', 0}, {'D', 1}}));
}

TEST_F(OutQueueTest, AStartedControlFrameFinishesBeforeLaterControlFrames) {
  OutQueue q;
  data(q, 0, 50);
  control(q, 0, 80);
  writer.script = {70};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.control_frames(), 1u);
  control(q, 1, 20);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'C', 1}, {'D', 0}}));
}

TEST_F(OutQueueTest, DataOverBudgetQueuesNothing) {
  OutQueue q({.max_bytes = 100, .max_frames = 10, .max_control_frames = 4});
  data(q, 0, 60);
  EXPECT_EQ(q.push_data(frame('D', 1, 50)), EnqueueStatus::over_budget);
  EXPECT_EQ(q.data_bytes(), 60u);
  EXPECT_EQ(q.data_frames(), 1u);
  data(q, 2, 40);  // exactly at the budget
  EXPECT_EQ(q.push_data(frame('D', 3, 16)), EnqueueStatus::over_budget);
  control(q, 0, 50);  // control frames do not count against the data budget
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'D', 0}, {'D', 2}}));
  EXPECT_TRUE(pool_full());
}

// The frame over the budget, pending or on the wire, is not counted against
// the frames behind it: they have the whole budget, and no more.
TEST_F(OutQueueTest, AnEmptyDataLaneTakesOneFrameBiggerThanTheBudget) {
  OutQueue q({.max_bytes = 100, .max_frames = 10, .max_control_frames = 4});
  data(q, 0, 500);
  data(q, 1, 60);
  EXPECT_EQ(q.push_data(frame('D', 2, 50)), EnqueueStatus::over_budget);
  writer.script = {499};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.data_bytes(), 61u);
  data(q, 2, 40);  // D1 and D2: exactly the budget behind D0's last byte
  EXPECT_EQ(q.push_data(frame('D', 3, 8)), EnqueueStatus::over_budget);
  writer.script = {1};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.data_bytes(), 100u);  // D0 is written: D1 and D2 are all that count
  EXPECT_EQ(q.push_data(frame('D', 3, 8)), EnqueueStatus::over_budget);
  drain(q);
  data(q, 3, 500);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'D', 1}, {'D', 2}, {'D', 3}}));
}

// One frame over the budget is taken whatever else waits, without counting
// against the budget; a second one waits its turn.
TEST_F(OutQueueTest, AFrameBiggerThanTheBudgetIsTakenBehindOthersOneAtATime) {
  OutQueue q({.max_bytes = 100, .max_frames = 10, .max_control_frames = 4});
  data(q, 0, 60);
  data(q, 1, 500);
  data(q, 2, 40);  // with D0: exactly the budget
  EXPECT_EQ(q.budgeted_bytes(), 100u);
  EXPECT_EQ(q.push_data(frame('D', 3, 500)), EnqueueStatus::over_budget);
  EXPECT_EQ(q.push_data(frame('D', 3, 8)), EnqueueStatus::over_budget);
  writer.script = {100};  // D0 and 40 bytes of D1: D1 is on the wire
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.budgeted_bytes(), 40u);
  EXPECT_EQ(q.push_data(frame('D', 3, 500)), EnqueueStatus::over_budget);
  data(q, 3, 60);
  drain(q);
  EXPECT_EQ(q.budgeted_bytes(), 0u);
  data(q, 4, 8);
  data(q, 5, 500);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream),
            (std::vector<Piece>{{'D', 0}, {'D', 1}, {'D', 2}, {'D', 3}, {'D', 4}, {'D', 5}}));
}

TEST_F(OutQueueTest, FrameCountLimitCountsTheFrameInFlight) {
  OutQueue q({.max_bytes = 1 << 20, .max_frames = 3, .max_control_frames = 4});
  for (int id = 0; id < 3; ++id) data(q, id, 30);
  EXPECT_EQ(q.push_data(frame('D', 3, 30)), EnqueueStatus::over_budget);
  writer.script = {29};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.data_frames(), 3u);
  EXPECT_EQ(q.push_data(frame('D', 3, 30)), EnqueueStatus::over_budget);
  writer.script = {1};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.data_frames(), 2u);
  data(q, 4, 30);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'D', 1}, {'D', 2}, {'D', 4}}));
}

TEST_F(OutQueueTest, ControlLaneFull) {
  OutQueue q({.max_bytes = 1 << 20, .max_frames = 10, .max_control_frames = 2});
  control(q, 0, 20);
  control(q, 1, 20);
  EXPECT_EQ(q.push_control(frame('C', 2, 20)), EnqueueStatus::full);
  EXPECT_EQ(q.control_frames(), 2u);
  data(q, 0, 20);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'C', 1}, {'D', 0}}));
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, SmallControlBytesRideInTheNewestControlFrame) {
  OutQueue q({.max_bytes = 1 << 20, .max_frames = 10, .max_control_frames = 2});
  data(q, 0, 20);
  EXPECT_FALSE(q.append_control(frame_text('C', 9, 10)));  // no control frame to ride in
  control(q, 0, 20);
  EXPECT_TRUE(q.append_control(frame_text('C', 1, 20)));
  EXPECT_TRUE(q.append_control(frame_text('C', 2, 20)));
  EXPECT_EQ(q.control_frames(), 1u);
  EXPECT_FALSE(q.append_control(frame_text('C', 3, 10)));  // 60 of the block's 64 bytes are used
  control(q, 3, 10);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream),
            (std::vector<Piece>{{'C', 0}, {'C', 1}, {'C', 2}, {'C', 3}, {'D', 0}}));
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, ControlBytesNeverJoinAFrameOnTheWireOrOneSharedElsewhere) {
  OutQueue q;
  control(q, 0, 20);
  writer.script = {10};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_FALSE(q.append_control(frame_text('C', 1, 20)));  // C0 is in flight: its length is on the wire
  const buf::FrameRef shared = frame('C', 2, 20);
  ASSERT_EQ(q.push_control(shared), EnqueueStatus::ok);
  EXPECT_FALSE(q.append_control(frame_text('C', 3, 20)));  // another holder would see the bytes
  EXPECT_EQ(shared.size(), 20u);
  drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'C', 0}, {'C', 2}}));
}

TEST_F(OutQueueTest, MoreBlocksThanTheGatherLimitTakeSeveralCallsInOneFlush) {
  OutQueue q;
  const int frames = kMaxGather * 3 / 2;
  for (int id = 0; id < frames; ++id) data(q, id, 20);
  const FlushResult r = q.flush(writer);
  EXPECT_EQ(r.status, FlushStatus::drained);
  EXPECT_EQ(r.calls, 2u);
  EXPECT_EQ(r.frames_completed, static_cast<std::size_t>(frames));
  EXPECT_EQ(writer.max_count, kMaxGather);
  EXPECT_EQ(pieces_of(writer.stream).size(), static_cast<std::size_t>(frames));
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, AFrameCutByTheGatherLimitResumesFromItsBlock) {
  OutQueue q;
  // Three blocks a frame: the limit (1024 on Linux, 16 on a microcontroller,
  // neither a multiple of 3) falls inside a frame.
  static_assert(kMaxGather % 3 != 0);
  const int frames = kMaxGather / 2;
  for (int id = 0; id < frames; ++id) data(q, id, 3 * kBlock);
  const FlushResult r = q.flush(writer);
  EXPECT_EQ(r.status, FlushStatus::drained);
  EXPECT_EQ(r.calls, 2u);
  const std::vector<Piece> pieces = pieces_of(writer.stream);
  ASSERT_EQ(pieces.size(), static_cast<std::size_t>(frames));
  for (int id = 0; id < frames; ++id) EXPECT_EQ(pieces[static_cast<std::size_t>(id)], (Piece{'D', id}));
}

TEST_F(OutQueueTest, AFrameSpanningManyBlocksSurvivesRandomCuts) {
  OutQueue q;
  const std::size_t size = 100 * kBlock + 17;
  data(q, 0, size);
  std::mt19937 random(7);
  for (int i = 0; i < 400; ++i) writer.script.push_back(std::uniform_int_distribution<long>(0, 150)(random));
  drain(q);
  EXPECT_EQ(writer.stream, frame_text('D', 0, size));
  EXPECT_TRUE(pool_full());
}

// A policy may take out or replace any frame that has not started on the
// wire; the queue hands back the label it was queued with and keeps its byte
// count and order.
TEST_F(OutQueueTest, PendingFramesCanBeRemovedAndReplacedAnywhere) {
  OutQueue q;
  for (int id = 0; id < 5; ++id) {
    ASSERT_EQ(q.push_data(frame('D', id, 40), FrameLabel{{std::uint64_t(id), 0, 0}}), EnqueueStatus::ok);
  }
  writer.script = {5};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);  // frame 0 is on the wire
  ASSERT_EQ(q.pending_data(), 4u);
  EXPECT_EQ(q.pending_label(0).words[0], 1u);
  EXPECT_EQ(q.remove_pending(1).words[0], 2u);  // from the middle
  EXPECT_EQ(q.replace_pending(2, frame('D', 9, 30), FrameLabel{{9, 0, 0}}).words[0], 4u);
  ASSERT_EQ(q.pending_data(), 3u);
  EXPECT_EQ(q.pending_label(0).words[0], 1u);
  EXPECT_EQ(q.pending_label(1).words[0], 3u);
  EXPECT_EQ(q.pending_label(2).words[0], 9u);
  EXPECT_EQ(q.data_bytes(), 35u + 40u + 40u + 30u);
  drain(q);
  EXPECT_EQ(writer.stream, frame_text('D', 0, 40) + frame_text('D', 1, 40) + frame_text('D', 3, 40) +
                               frame_text('D', 9, 30));
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, DropOldestNeverDropsTheFrameInFlight) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 60);
  data(q, 2, 40);
  writer.script = {5};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_TRUE(q.drop_oldest_data());
  EXPECT_TRUE(q.drop_oldest_data());
  EXPECT_FALSE(q.drop_oldest_data());
  EXPECT_EQ(q.data_frames(), 1u);
  EXPECT_EQ(q.data_bytes(), 95u);
  drain(q);
  EXPECT_EQ(writer.stream, frame_text('D', 0, 100));
  EXPECT_EQ(q.data_bytes(), 0u);
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, AWriterErrorKeepsTheFramesUntilClear) {
  OutQueue q;
  data(q, 0, 100);
  control(q, 0, 20);
  writer.script = {30, -ECONNRESET};
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  const FlushResult r = q.flush(writer);
  EXPECT_EQ(r.status, FlushStatus::error);
  EXPECT_EQ(r.error, ECONNRESET);
  EXPECT_EQ(r.calls, 1u);
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(q.data_frames(), 1u);
  EXPECT_EQ(q.control_frames(), 0u);
  EXPECT_FALSE(pool_full());
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.data_bytes(), 0u);
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, EmptyFramesCompleteWithoutAWrite) {
  OutQueue q;
  ASSERT_EQ(q.push_data(buf::make_frame(pool, buf::Lane::data, "")), EnqueueStatus::ok);
  ASSERT_EQ(q.push_control(buf::FrameRef()), EnqueueStatus::ok);
  const FlushResult r = q.flush(writer);
  EXPECT_EQ(r.status, FlushStatus::drained);
  EXPECT_EQ(r.calls, 0u);
  EXPECT_EQ(r.frames_completed, 2u);
  data(q, 0, 30);
  ASSERT_EQ(q.push_data(buf::make_frame(pool, buf::Lane::data, "")), EnqueueStatus::ok);
  data(q, 1, 30);
  EXPECT_EQ(q.flush(writer).frames_completed, 3u);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'D', 1}}));
  EXPECT_TRUE(pool_full());
}

// Pushes, drops and flushes at random against random cuts; whatever the
// order of events, the stream holds every accepted, undropped frame exactly
// once, whole, each lane in order.
TEST_F(OutQueueTest, RandomPushesDropsAndCutsKeepTheStreamExact) {
  OutQueue q({.max_bytes = 4000, .max_frames = 40, .max_control_frames = 8});
  std::mt19937 random(20240601);
  auto uniform = [&random](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  int data_accepted = 0;
  int control_accepted = 0;
  int dropped = 0;
  for (int step = 0; step < 3000; ++step) {
    const int action = uniform(0, 9);
    if (action < 4) {
      data_accepted +=
          q.push_data(frame('D', data_accepted, static_cast<std::size_t>(uniform(16, 300)))) == EnqueueStatus::ok;
    } else if (action < 5) {
      control_accepted +=
          q.push_control(frame('C', control_accepted, static_cast<std::size_t>(uniform(16, 90)))) == EnqueueStatus::ok;
    } else if (action < 6) {
      dropped += q.drop_oldest_data().has_value();
    } else {
      writer.script = {uniform(0, 3) == 0 ? 0L : static_cast<long>(uniform(1, 700))};
      ASSERT_NE(q.flush(writer).status, FlushStatus::error);
    }
  }
  writer.script.clear();
  drain(q);
  const std::vector<Piece> pieces = pieces_of(writer.stream);
  int next_control = 0;
  int last_data = -1;
  int data_seen = 0;
  for (const Piece& p : pieces) {
    if (p.lane == 'C') {
      EXPECT_EQ(p.id, next_control++);
    } else {
      EXPECT_GT(p.id, last_data);
      last_data = p.id;
      ++data_seen;
    }
  }
  EXPECT_EQ(next_control, control_accepted);
  EXPECT_EQ(data_seen + dropped, data_accepted);
  EXPECT_GT(dropped, 0);
  EXPECT_TRUE(pool_full());
}

// A device's queue: its rings are the caller's slots, so the lanes hold no
// more frames than there are slots, whatever the limits say, and the ring
// wraps around in place.
TEST_F(OutQueueTest, InCallerMemoryTheLanesHoldAsManyFramesAsTheSlots) {
  QueuedFrame control_slots[2];
  QueuedFrame data_slots[3];
  OutQueue q({.max_frames = 100, .max_control_frames = 100}, {control_slots, data_slots});
  EXPECT_EQ(q.limits().max_frames, 3u);
  EXPECT_EQ(q.limits().max_control_frames, 2u);
  int id = 0;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 3; ++i) data(q, ++id, 80);
    EXPECT_EQ(q.push_data(frame('D', 99, 80)), EnqueueStatus::over_budget);
    control(q, id, 20);
    control(q, id + 50, 20);
    EXPECT_EQ(q.push_control(frame('C', 98, 20)), EnqueueStatus::full);
    EXPECT_EQ(drain(q).status, FlushStatus::drained);
  }
  const std::vector<Piece> got = pieces_of(writer.stream);
  ASSERT_EQ(got.size(), 20u);
  EXPECT_EQ(got[0], (Piece{'C', 3}));  // control first, each round
  EXPECT_EQ(got[2], (Piece{'D', 1}));
  EXPECT_EQ(got[19], (Piece{'D', 12}));
  EXPECT_TRUE(pool_full());
}

// The oldest data frame's publish time is what a flush measures its wait
// from: the frame in flight while it is cut, then the next one queued.
TEST_F(OutQueueTest, OldestDataPublishTimeFollowsTheFrameInFlightThenTheNext) {
  OutQueue q;
  EXPECT_EQ(q.oldest_data_published_ns(), 0);
  buf::FrameRef first = frame('D', 1, 100);
  first.set_published_ns(1000);
  buf::FrameRef second = frame('D', 2, 100);
  second.set_published_ns(2000);
  ASSERT_EQ(q.push_data(std::move(first)), EnqueueStatus::ok);
  ASSERT_EQ(q.push_data(std::move(second)), EnqueueStatus::ok);
  control(q, 3, 40);
  EXPECT_EQ(q.oldest_data_published_ns(), 1000);
  writer.script = {40 + 50};  // the control frame and half of the first
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.oldest_data_published_ns(), 1000) << "the frame in flight is still the oldest";
  writer.script = {50};  // the rest of the first: a short write
  EXPECT_EQ(q.flush(writer).status, FlushStatus::blocked);
  EXPECT_EQ(q.oldest_data_published_ns(), 2000);
  EXPECT_EQ(q.flush(writer).status, FlushStatus::drained);
  EXPECT_EQ(q.oldest_data_published_ns(), 0);
}

// The sweep's look at a reader (server/pool_shedding.hpp): behind while
// data waits and no data frame was fully written since the look before.

TEST_F(OutQueueTest, AReaderIsBehindAtEachLookThatFindsNoDataFrameWritten) {
  OutQueue q;
  EXPECT_EQ(q.look_behind(), 0u);  // nothing waits
  data(q, 0, 100);
  data(q, 1, 100);
  EXPECT_EQ(q.look_behind(), 1u);
  writer.script = {99, 0};  // all but one byte of the first frame
  (void)q.flush(writer);
  EXPECT_EQ(q.look_behind(), 2u);  // a byte short of a frame is no progress
  writer.script = {1, 0};
  (void)q.flush(writer);
  EXPECT_EQ(q.look_behind(), 0u);  // the first frame went whole
  EXPECT_EQ(q.look_behind(), 1u);
  EXPECT_EQ(q.looks_behind(), 1u);
  (void)drain(q);
  EXPECT_EQ(q.look_behind(), 0u);  // nothing waits
}

TEST_F(OutQueueTest, ControlFramesWrittenAreNoProgressOfTheReader) {
  OutQueue q;
  data(q, 0, 100);
  EXPECT_EQ(q.look_behind(), 1u);
  control(q, 0, 30);
  writer.script = {30, 0};
  (void)q.flush(writer);
  EXPECT_EQ(q.look_behind(), 2u);
}

TEST_F(OutQueueTest, DroppingPendingDataKeepsTheFrameInFlightAndControl) {
  OutQueue q;
  data(q, 0, 100);
  data(q, 1, 100);
  data(q, 2, 100);
  writer.script = {50, 0};
  (void)q.flush(writer);
  control(q, 0, 30);
  EXPECT_EQ(q.drop_pending_data(), 200u);
  EXPECT_EQ(q.data_bytes(), 50u);
  (void)drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'C', 0}}));
  EXPECT_TRUE(pool_full());
}

TEST_F(OutQueueTest, ALargeFrameTakenOverSeveralLooksIsProgress) {
  OutQueue q({.max_bytes = 1 << 20});
  data(q, 0, 40 * 1024);
  EXPECT_EQ(q.look_behind(), 1u);
  ASSERT_EQ(take(q, kLookProgressBytes), kLookProgressBytes);
  EXPECT_EQ(q.look_behind(), 0u);  // no frame whole yet, but a reader reading
  ASSERT_EQ(take(q, 100), 100u);
  EXPECT_EQ(q.look_behind(), 1u);  // a trickle is not
  (void)drain(q);
}

// A reader that takes a frame a look, its backlog kept full behind it,
// reads but never catches up: behind until the backlog comes down once.
TEST_F(OutQueueTest, AReaderWhoseBacklogNeverComesDownIsBehindThoughItReads) {
  OutQueue q({.max_bytes = 64 * 1024});  // caught up under 16 KiB
  int id = 0;
  for (; id < 10; ++id) data(q, id, 4096);
  EXPECT_EQ(q.look_behind(), 1u);
  for (int look = 2; look <= 4; ++look) {
    ASSERT_EQ(take(q, 4096), 4096u);  // one frame whole, then the socket is full
    data(q, id++, 4096);  // and the topic publishes one more
    EXPECT_EQ(q.look_behind(), static_cast<std::uint32_t>(look));
  }
  // Down to three frames (12 KiB) once between two looks, then full again.
  ASSERT_EQ(take(q, 7 * 4096), 7u * 4096);
  for (int i = 0; i < 7; ++i) data(q, id++, 4096);
  EXPECT_EQ(q.look_behind(), 0u);
  EXPECT_EQ(q.look_behind(), 1u) << "nothing read since";
  (void)drain(q);
}

// A reader taking a large frame over several looks, with little behind
// it, is reading; with as large a frame waiting behind it all along, it
// is no faster than it is sent.
TEST_F(OutQueueTest, ALargeFrameIsBehindOnlyWithAsLargeABacklogBehindIt) {
  OutQueue q({.max_bytes = 256 * 1024});  // caught up under 64 KiB
  const auto take_16k = [&] { return take(q, kLookProgressBytes); };
  data(q, 0, 150 * 1024);
  data(q, 1, 200);
  data(q, 2, 200);
  ASSERT_EQ(take(q, 10), 10u);
  EXPECT_EQ(q.look_behind(), 1u) << "ten bytes are no progress";
  for (int look = 0; look < 4; ++look) {
    ASSERT_EQ(take_16k(), kLookProgressBytes);
    data(q, 3 + look, 200);
    EXPECT_EQ(q.look_behind(), 0u) << "a few small frames behind it are no backlog";
  }
  data(q, 10, 80 * 1024);  // now a frame larger than 64 KiB waits behind it
  ASSERT_EQ(take_16k(), kLookProgressBytes);
  EXPECT_EQ(q.look_behind(), 0u) << "it came under 64 KiB since the look before";
  ASSERT_EQ(take_16k(), kLookProgressBytes);
  EXPECT_EQ(q.look_behind(), 1u);
  ASSERT_EQ(take_16k(), kLookProgressBytes);
  EXPECT_EQ(q.look_behind(), 2u);
  (void)drain(q);
  EXPECT_EQ(q.look_behind(), 0u);
}

// What a publisher burst leaves queued comes down at every look while the
// reader drains it, however long that takes; a reader that varies what it
// takes while its queue is refilled dips now and then, but not a further
// 16 KiB below its lowest time after time.
TEST_F(OutQueueTest, ABurstBeingDrainedComesDownButARefilledQueueDoesNot) {
  OutQueue q({.max_bytes = 256 * 1024});  // caught up under 64 KiB
  int id = 0;
  for (; id < 100; ++id) data(q, id, 2048);  // 200 KiB at once
  (void)q.look_behind();
  for (int look = 0; look < 5; ++look) {
    ASSERT_EQ(take(q, 10 * 2048), 10u * 2048);  // 20 KiB a look, down to 100 KiB
    EXPECT_EQ(q.look_behind(), 0u) << "look " << look;
  }
  // Refilled to where it was after each read; the reader takes 1 frame,
  // then 9, then 1, then 9...: 18 KiB below the mark once, and from then
  // on never a further 16 KiB below it.
  const std::uint32_t looks[] = {1, 0, 1, 2, 3, 4};
  for (int look = 0; look < 6; ++look) {
    const int frames = look % 2 == 0 ? 1 : 9;
    ASSERT_EQ(take(q, static_cast<std::size_t>(frames) * 2048), static_cast<std::size_t>(frames) * 2048);
    for (int i = 0; i < frames; ++i) data(q, id++, 2048);
    EXPECT_EQ(q.look_behind(), looks[look]) << "look " << look;
  }
  (void)drain(q);
}

// A close pushed onto a full data ring makes room with the newest frame
// not on the wire: the client keeps a whole run of what it was sent and
// resumes after it, rather than past a gap it never hears of.
TEST_F(OutQueueTest, TheLastFrameOnAFullRingTakesTheNewestPendingFramesPlace) {
  OutQueue q({.max_bytes = 1 << 20, .max_frames = 3});
  data(q, 0, 100);
  data(q, 1, 100);
  data(q, 2, 100);
  q.push_last(frame('L', 9, 30));
  (void)drain(q);
  EXPECT_EQ(pieces_of(writer.stream), (std::vector<Piece>{{'D', 0}, {'D', 1}, {'L', 9}}));
  EXPECT_TRUE(pool_full());
}

}  // namespace
}  // namespace sluice::conn
