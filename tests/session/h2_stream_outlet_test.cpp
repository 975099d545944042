#include "session/h2_stream_outlet.hpp"

#include <nghttp2/nghttp2.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "buf/pool.hpp"
#include "conn/gate_checks.hpp"
#include "conn/latency_gate.hpp"

namespace sluice::session {
namespace {

using namespace std::chrono_literals;

// A stream's backlog as a reader on loopback whose window moves in 1 KiB
// steps shows it: nothing unread, whatever it holds, so a gate asks it.
struct BlindBacklog final : conn::BacklogSource {
  std::optional<conn::Backlog> sample(conn::BacklogSource::Clock::time_point) override {
    conn::Backlog backlog;
    backlog.window_unit = 1024;
    return backlog;
  }
  void padded(std::size_t, conn::BacklogSource::Clock::time_point) override {}
};

// Input that waits unread, as a connection tells it: none, or since `since`.
struct ScriptedInbox final : conn::AnswerInbox {
  std::optional<Clock::time_point> unread_since(Clock::time_point) override { return since; }
  std::optional<Clock::time_point> since;
};

// Records what the outlet asks of the connection carrying its stream.
struct RecordingCarrier final : H2StreamCarrier {
  void stream_output(std::int32_t stream) override { woken.push_back(stream); }
  void end_stream(std::int32_t stream) override { ended.push_back(stream); }
  void reset_stream(std::int32_t stream, std::uint32_t code) override { resets.push_back({stream, code}); }
  void resume_input(std::int32_t stream) override { resumed.push_back(stream); }
  std::unique_ptr<conn::BacklogSource> watch_stream(std::int32_t, std::size_t) override {
    if (!watchable) return nullptr;
    return std::make_unique<BlindBacklog>();
  }
  std::uint64_t ask_reader() override { return ++asks; }
  conn::AnswerInbox& answer_inbox() override { return inbox; }
  ScriptedInbox inbox;
  bool watchable = false;
  std::uint64_t asks = 0;
  std::vector<std::int32_t> woken, ended, resumed;
  std::vector<std::pair<std::int32_t, std::uint32_t>> resets;
};

struct OutletFixture {
  io::Loop loop;
  buf::Pool pool{{.block_count = 16, .block_size = 256, .reserve = 2, .prefault = false}};
  conn::OutQueue queue;
  RecordingCarrier carrier;
};

TEST(H2StreamOutlet, FramesQueuedInATickWakeTheStreamOnceAtItsEnd) {
  OutletFixture f;
  H2StreamOutlet outlet(f.loop, f.queue, f.carrier, 5);
  EXPECT_EQ(outlet.send_data(buf::make_frame(f.pool, buf::Lane::data, "data: a\n\n")), conn::EnqueueStatus::ok);
  EXPECT_EQ(outlet.send_data(buf::make_frame(f.pool, buf::Lane::data, "data: b\n\n")), conn::EnqueueStatus::ok);
  EXPECT_EQ(f.queue.data_frames(), 2u);  // the engine's queue is the outlet's
  EXPECT_TRUE(f.carrier.woken.empty());
  f.loop.run_once(0);
  EXPECT_EQ(f.carrier.woken, std::vector<std::int32_t>{5});
}

TEST(H2StreamOutlet, CloseAfterFlushEndsTheStreamOnceAndRemembersWhen) {
  OutletFixture f;
  H2StreamOutlet outlet(f.loop, f.queue, f.carrier, 7);
  outlet.close_after_flush(conn::CloseReason::slow_consumer);
  outlet.close_after_flush(conn::CloseReason::slow_consumer);
  EXPECT_TRUE(outlet.closing());
  EXPECT_FALSE(outlet.closed());
  EXPECT_EQ(f.carrier.ended, std::vector<std::int32_t>{7});
  EXPECT_EQ(outlet.closing_since(), f.loop.now());
}

TEST(H2StreamOutlet, CloseNowResetsAndTakesNothingMore) {
  OutletFixture f;
  H2StreamOutlet outlet(f.loop, f.queue, f.carrier, 9);
  outlet.close_now(conn::CloseReason::timeout);
  outlet.close_now(conn::CloseReason::timeout);
  ASSERT_EQ(f.carrier.resets.size(), 1u);
  EXPECT_EQ(f.carrier.resets[0].second, static_cast<std::uint32_t>(NGHTTP2_CANCEL));
  EXPECT_EQ(outlet.send_data(buf::make_frame(f.pool, buf::Lane::data, "late")), conn::EnqueueStatus::full);
  EXPECT_TRUE(f.queue.empty());

  H2StreamOutlet failed(f.loop, f.queue, f.carrier, 11);
  failed.close_now(conn::CloseReason::io_error);
  EXPECT_EQ(f.carrier.resets[1].second, static_cast<std::uint32_t>(NGHTTP2_INTERNAL_ERROR));
}

TEST(H2StreamOutlet, AStreamTheEngineClosedIsNeitherWokenNorReset) {
  OutletFixture f;
  H2StreamOutlet outlet(f.loop, f.queue, f.carrier, 3);
  EXPECT_EQ(outlet.send_data(buf::make_frame(f.pool, buf::Lane::data, "x")), conn::EnqueueStatus::ok);
  outlet.gone();
  f.loop.run_once(0);
  outlet.close_now(conn::CloseReason::peer);
  EXPECT_TRUE(f.carrier.woken.empty());
  EXPECT_TRUE(f.carrier.resets.empty());
}

// A stream resumes its input at the end of the tick, not inside the call
// that asked (which may be the stream's own reading).
TEST(H2StreamOutlet, ResumingInputWaitsForTheEndOfTheTick) {
  OutletFixture f;
  H2StreamOutlet outlet(f.loop, f.queue, f.carrier, 7);
  outlet.resume_input();
  EXPECT_TRUE(f.carrier.resumed.empty());
  f.loop.run_once(0);
  EXPECT_EQ(f.carrier.resumed, std::vector<std::int32_t>{7});
  outlet.resume_input();
  outlet.gone();
  f.loop.run_once(0);
  EXPECT_EQ(f.carrier.resumed.size(), 1u);  // a stream that is gone reads nothing
}

// Takes everything it is offered, as an engine framing a stream's DATA.
struct TakeAll final : conn::Writer {
  long writev(const struct iovec* iov, int count) override {
    long taken = 0;
    for (int i = 0; i < count; ++i) taken += static_cast<long>(iov[i].iov_len);
    return taken;
  }
};

// A stream under a gate that asks with PINGs (its window moves in steps
// too large to show its frames), over an engine that takes everything.
struct AskingStream : OutletFixture {
  AskingStream() {
    carrier.watchable = true;
    EXPECT_TRUE(outlet.bound_unread({.window_frames = 1, .grace = 20ms}, checks,
                                    {.probe = buf::make_frame(pool, buf::Lane::control, "\n")}));
  }
  // Queues an event and flushes the connection at `at`.
  void flush_at(io::Loop::Clock::time_point at) {
    ASSERT_EQ(outlet.send_data(buf::make_frame(pool, buf::Lane::data, "data: e\n\n")), conn::EnqueueStatus::ok);
    const conn::DataAllowance allowance = outlet.plan_flush(at, sent);
    sent += static_cast<std::uint64_t>(queue.flush(engine, allowance).bytes);
    outlet.flushed(at, conn::FlushStatus::drained, sent, false);
  }
  [[nodiscard]] bool lagging() const { return outlet.latency_gate()->lagging(); }

  H2StreamOutlet outlet{loop, queue, carrier, 1};
  conn::GateChecks checks{loop};
  TakeAll engine;
  std::uint64_t sent = 0;
};

// A PING's answer is judged by when it reached this host, as the carrier
// tells it, not by the loop's time: by the loop's, a loop that stalled
// after the ask took a reader that answered at once for one that lags.
TEST(H2StreamOutlet, APingsAnswerIsJudgedByWhenItCame) {
  for (const auto answered_after : {2ms, 100ms}) {
    AskingStream s;
    const auto t0 = s.loop.now();
    s.flush_at(t0);
    s.flush_at(t0 + 1ms);  // carries an ask about the first flush's data
    ASSERT_EQ(s.carrier.asks, 1u);
    ASSERT_FALSE(s.lagging());
    s.outlet.pings_answered(1, t0 + 1ms + answered_after);
    EXPECT_EQ(s.lagging(), answered_after > 20ms) << answered_after.count() << " ms";
  }
}

// A flush that finds the PING's answer due asks the carrier whether input
// waits unread: input that came in time may hold the answer, and the
// verdict waits for its read; input that came late, or none, is a late
// answer.
TEST(H2StreamOutlet, APingPastItsTimeIsNotLateWhileInputThatCameInTimeWaitsUnread) {
  enum class Waiting { in_time, late, none };
  for (const Waiting waiting : {Waiting::in_time, Waiting::late, Waiting::none}) {
    SCOPED_TRACE(static_cast<int>(waiting));
    AskingStream s;
    const auto t0 = s.loop.now();
    s.flush_at(t0);
    s.flush_at(t0 + 1ms);
    ASSERT_EQ(s.carrier.asks, 1u);
    if (waiting == Waiting::in_time) s.carrier.inbox.since = t0 + 2ms;
    if (waiting == Waiting::late) s.carrier.inbox.since = t0 + 60ms;
    s.flush_at(t0 + 100ms);
    EXPECT_EQ(s.lagging(), waiting != Waiting::in_time);
  }
}

}  // namespace
}  // namespace sluice::session
