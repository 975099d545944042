#include "session/h2_stream_outlet.hpp"

#include <nghttp2/nghttp2.h>

#include <gtest/gtest.h>

#include <vector>

#include "buf/pool.hpp"

namespace sluice::session {
namespace {

// Records what the outlet asks of the connection carrying its stream.
struct RecordingCarrier final : H2StreamCarrier {
  void stream_output(std::int32_t stream) override { woken.push_back(stream); }
  void end_stream(std::int32_t stream) override { ended.push_back(stream); }
  void reset_stream(std::int32_t stream, std::uint32_t code) override { resets.push_back({stream, code}); }
  void resume_input(std::int32_t stream) override { resumed.push_back(stream); }
  std::unique_ptr<conn::BacklogSource> watch_stream(std::int32_t, std::size_t) override { return nullptr; }
  std::uint64_t ask_reader() override { return ++asks; }
  std::uint64_t asks = 0;
  std::vector<std::int32_t> woken, ended, resumed;
  std::vector<std::pair<std::int32_t, std::uint32_t>> resets;
};

struct Fixture {
  io::Loop loop;
  buf::Pool pool{{.block_count = 16, .block_size = 256, .reserve = 2, .prefault = false}};
  conn::OutQueue queue;
  RecordingCarrier carrier;
};

TEST(H2StreamOutlet, FramesQueuedInATickWakeTheStreamOnceAtItsEnd) {
  Fixture f;
  H2StreamOutlet outlet(f.loop, f.queue, f.carrier, 5);
  EXPECT_EQ(outlet.send_data(buf::make_frame(f.pool, buf::Lane::data, "data: a\n\n")), conn::EnqueueStatus::ok);
  EXPECT_EQ(outlet.send_data(buf::make_frame(f.pool, buf::Lane::data, "data: b\n\n")), conn::EnqueueStatus::ok);
  EXPECT_EQ(f.queue.data_frames(), 2u);  // the engine's queue is the outlet's
  EXPECT_TRUE(f.carrier.woken.empty());
  f.loop.run_once(0);
  EXPECT_EQ(f.carrier.woken, std::vector<std::int32_t>{5});
}

TEST(H2StreamOutlet, CloseAfterFlushEndsTheStreamOnceAndRemembersWhen) {
  Fixture f;
  H2StreamOutlet outlet(f.loop, f.queue, f.carrier, 7);
  outlet.close_after_flush(conn::CloseReason::slow_consumer);
  outlet.close_after_flush(conn::CloseReason::slow_consumer);
  EXPECT_TRUE(outlet.closing());
  EXPECT_FALSE(outlet.closed());
  EXPECT_EQ(f.carrier.ended, std::vector<std::int32_t>{7});
  EXPECT_EQ(outlet.closing_since(), f.loop.now());
}

TEST(H2StreamOutlet, CloseNowResetsAndTakesNothingMore) {
  Fixture f;
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
  Fixture f;
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
  Fixture f;
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

}  // namespace
}  // namespace sluice::session
