// FrameMeter on byte streams cut every way: which frames count, the
// per-second window, and the flood verdict.
#include "transport/h2_frame_meter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "feed_all_splits.hpp"
#include "h2_test_client.hpp"

namespace sluice::transport {
namespace {

using test::h2_frame;
using Clock = FrameMeter::Clock;

const std::string kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// The session's answers: the streams it opened, of which those up to one
// are gone.
class StreamsUpTo final : public StreamStates {
 public:
  StreamsUpTo(std::uint32_t gone_through, std::uint32_t last_opened)
      : gone_through_(gone_through), last_opened_(last_opened) {}
  [[nodiscard]] std::uint32_t last_opened() const override { return last_opened_; }
  [[nodiscard]] bool open(std::uint32_t stream) const override { return stream > gone_through_; }

 private:
  std::uint32_t gone_through_;
  std::uint32_t last_opened_;
};
const StreamsUpTo kAllOpen(0, 0);

std::string window_update(std::uint32_t stream, std::uint32_t increment) {
  std::string payload;
  for (int shift = 24; shift >= 0; shift -= 8) payload.push_back(static_cast<char>((increment >> shift) & 0xff));
  return h2_frame(0x8, 0, stream, payload);
}

// Counted frames after feeding `bytes` in the given chunks.
std::uint64_t counted(const sluice::test::Chunks& chunks, std::uint32_t limit = 1000000) {
  FrameMeter meter(limit, true);
  const Clock::time_point now{};
  for (const std::string_view chunk : chunks) (void)meter.scan(chunk, now, 0, 100, kAllOpen);
  return meter.counted();
}

TEST(FrameMeter, CountsFramesThatCarryNoWorkWhereverTheBytesAreCut) {
  const std::string stream = kPreface + h2_frame(0x4, 0, 0, std::string(6, '\0'))  // SETTINGS
                             + h2_frame(0x1, 0x5, 1, "hdrs")                          // HEADERS opening stream 1
                             + h2_frame(0x0, 0x0, 1, "body")                          // DATA with bytes
                             + h2_frame(0x0, 0x0, 1, "")                              // empty DATA: counts
                             + h2_frame(0x0, 0x1, 1, "")                              // empty END_STREAM: does not
                             + h2_frame(0x6, 0, 0, std::string(8, 'p'))              // PING
                             + window_update(0, 65536)                                // a real window: does not
                             + window_update(1, 1)                                    // dribble: counts
                             + h2_frame(0x3, 0, 1, std::string(4, '\0'))             // RST_STREAM
                             + h2_frame(0x9, 0x4, 1, "c")                             // CONTINUATION
                             + h2_frame(0xfa, 0, 0, "ext");                           // unknown type
  sluice::test::for_each_split(stream, [&](const sluice::test::Chunks& chunks) { EXPECT_EQ(counted(chunks), 7u); });
}

// A request head is under way from its first byte until its header block
// ends (END_HEADERS), however the bytes are cut; a body's DATA is not one.
TEST(FrameMeter, NotesWhenARequestHeadBeganUntilItsBlockEnds) {
  FrameMeter meter(1000000, true);
  const Clock::time_point t0{};
  const auto at = [&](int ms) { return t0 + std::chrono::milliseconds(ms); };
  const auto scan = [&](const std::string& bytes, int ms) { (void)meter.scan(bytes, at(ms), 0, 100, kAllOpen); };
  scan(kPreface + h2_frame(0x4, 0, 0, ""), 0);
  EXPECT_FALSE(meter.head_since());
  const std::string headers = h2_frame(0x1, 0x0, 1, "hdrs");  // no END_HEADERS
  scan(headers.substr(0, 4), 10);
  EXPECT_EQ(meter.head_since(), at(10));
  scan(headers.substr(4), 20);
  EXPECT_EQ(meter.head_since(), at(10));
  const std::string continuation = h2_frame(0x9, 0x4, 1, "more");
  scan(continuation.substr(0, 11), 30);
  EXPECT_EQ(meter.head_since(), at(10));
  scan(continuation.substr(11), 40);
  EXPECT_FALSE(meter.head_since());
  scan(h2_frame(0x0, 0x0, 1, "body of a request").substr(0, 12), 50);
  EXPECT_FALSE(meter.head_since());
  scan(std::string(14, 'b') + h2_frame(0x1, 0x5, 3, "whole"), 60);
  EXPECT_FALSE(meter.head_since());
  scan(h2_frame(0x6, 0, 0, std::string(8, 'p')).substr(0, 5), 70);
  EXPECT_EQ(meter.head_since(), at(70));
}

// nghttp2 drops DATA and WINDOW_UPDATE frames for a stream it has closed
// without a word: each counts, whatever its size, or a client could send
// them without end. A stream opened by the same bytes is not gone: the
// session has yet to hear of it.
TEST(FrameMeter, FramesForAStreamAlreadyClosedCount) {
  FrameMeter meter(1000000, true);
  const Clock::time_point now{};
  (void)meter.scan(kPreface + h2_frame(0x1, 0x5, 1, "hdrs"), now, 0, 100, kAllOpen);
  ASSERT_EQ(meter.counted(), 0u);
  const std::string late = window_update(1, 65536) + h2_frame(0x0, 0x0, 1, "x") + window_update(0, 65536);
  const std::string opening = h2_frame(0x1, 0x4, 3, "hdrs") + window_update(3, 65536) + h2_frame(0x0, 0x0, 3, "x");
  (void)meter.scan(late + opening, now, 0, 100, StreamsUpTo(1, 1));
  EXPECT_EQ(meter.counted(), 2u);
  (void)meter.scan(window_update(3, 65536), now, 1, 100, StreamsUpTo(1, 3));
  EXPECT_EQ(meter.counted(), 2u);
}

// A stream the server reset itself (a slow reader cut off, a stream
// refused) may still have a window of the client's frames on the way: up
// to kFramesForgivenAfterReset of them do not count, the next does.
TEST(FrameMeter, FramesOnTheirWayToAStreamTheServerResetAreForgiven) {
  FrameMeter meter(1000000, true);
  const Clock::time_point now{};
  (void)meter.scan(kPreface + h2_frame(0x1, 0x4, 1, "hdrs"), now, 0, 100, kAllOpen);
  constexpr std::uint32_t kCancel = 0x8;
  meter.reset_sent(1, kCancel, now);
  std::string late;
  for (std::uint32_t i = 0; i < FrameMeter::kFramesForgivenAfterReset; ++i) late += h2_frame(0x0, 0x0, 1, "m");
  (void)meter.scan(late, now, 0, 100, StreamsUpTo(1, 1));
  EXPECT_EQ(meter.counted(), 0u);
  (void)meter.scan(h2_frame(0x0, 0x0, 1, "m") + window_update(1, 1 << 20), now, 0, 100, StreamsUpTo(1, 1));
  EXPECT_EQ(meter.counted(), 2u);
}

TEST(FrameMeter, HeadersPastTheStreamLimitCount) {
  FrameMeter meter(1000000, false);
  std::string bytes;
  for (std::uint32_t id = 1; id <= 9; id += 2) bytes += h2_frame(0x1, 0x5, id, "h");
  bytes += h2_frame(0x1, 0x5, 3, "trailers");  // not a new stream
  (void)meter.scan(bytes, Clock::time_point{}, 1, 3, kAllOpen);
  // Streams 1 and 3 fit beside the one open; 5, 7, 9 and the trailers count.
  EXPECT_EQ(meter.counted(), 4u);
  EXPECT_EQ(meter.frames(), 6u);
}

TEST(FrameMeter, APeerPastTheLimitInOneSecondIsAFloodForGood) {
  FrameMeter meter(10, true);
  const std::string ping = h2_frame(0x6, 0, 0, std::string(8, 'p'));
  Clock::time_point now{};
  ASSERT_EQ(meter.scan(kPreface, now, 0, 100, kAllOpen), MeterVerdict::ok);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(meter.scan(ping, now, 0, 100, kAllOpen), MeterVerdict::ok);
  // A new second starts a new count.
  now += std::chrono::milliseconds(1001);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(meter.scan(ping, now, 0, 100, kAllOpen), MeterVerdict::ok);
  EXPECT_EQ(meter.scan(ping, now, 0, 100, kAllOpen), MeterVerdict::flood);
  now += std::chrono::seconds(5);
  EXPECT_EQ(meter.scan(ping, now, 0, 100, kAllOpen), MeterVerdict::flood);
}

// The server's own PINGs are answered: as many answers as it asked are not
// counted; one more, asked by nobody, is.
TEST(FrameMeter, AnswersToTheServersOwnPingsAreNotCounted) {
  FrameMeter meter(1000000, true);
  const std::string ack = h2_frame(0x6, 0x1, 0, std::string(8, 'p'));
  const Clock::time_point now{};
  (void)meter.scan(kPreface, now, 0, 100, kAllOpen);
  meter.expect_ping_ack();
  meter.expect_ping_ack();
  (void)meter.scan(ack + ack, now, 0, 100, kAllOpen);
  EXPECT_EQ(meter.counted(), 0u);
  (void)meter.scan(ack, now, 0, 100, kAllOpen);
  EXPECT_EQ(meter.counted(), 1u);
  meter.expect_ping_ack();
  (void)meter.scan(h2_frame(0x6, 0, 0, std::string(8, 'p')), now, 0, 100, kAllOpen);  // a PING of the peer's own
  EXPECT_EQ(meter.counted(), 2u);
}

// The server's resets for the client's errors count as the client's own
// resets would; those of the server's choosing do not.
TEST(FrameMeter, ResetsSentForTheClientsErrorsCountAndMakeAFlood) {
  FrameMeter meter(3, true);
  const Clock::time_point now{};
  (void)meter.scan(kPreface, now, 0, 100, kAllOpen);
  for (const std::uint32_t own : {0x0u /* NO_ERROR */, 0x2u /* INTERNAL */, 0x8u /* CANCEL */}) {
    meter.reset_sent(1, own, now);
  }
  EXPECT_EQ(meter.counted(), 0u);
  meter.reset_sent(1, 0x1, now);  // PROTOCOL_ERROR
  meter.reset_sent(1, 0x3, now);  // FLOW_CONTROL_ERROR
  meter.reset_sent(1, 0x7, now);  // REFUSED_STREAM
  EXPECT_EQ(meter.counted(), 3u);
  EXPECT_FALSE(meter.flooded());
  meter.reset_sent(1, 0x6, now);  // FRAME_SIZE_ERROR: the fourth in a second of three
  EXPECT_TRUE(meter.flooded());
  EXPECT_EQ(meter.scan(h2_frame(0x0, 0x0, 1, "body"), now, 0, 100, kAllOpen), MeterVerdict::flood);
}

TEST(FrameMeter, PayloadBytesAreNeverReadAsHeaders) {
  // A DATA payload that looks like a burst of PING frames.
  std::string fake;
  for (int i = 0; i < 50; ++i) fake += h2_frame(0x6, 0, 0, std::string(8, 'p'));
  const std::string stream = kPreface + h2_frame(0x0, 0x0, 1, fake);
  sluice::test::for_each_split(stream, [&](const sluice::test::Chunks& chunks) { EXPECT_EQ(counted(chunks), 0u); });
}

}  // namespace
}  // namespace sluice::transport
