// Reading an OutQueue without taking, then taking exactly what went out.
#include "transport/queue_peek.hpp"

#include <gtest/gtest.h>

#include <string>

#include "buf/frame.hpp"
#include "buf/pool.hpp"

namespace sluice::transport {
namespace {

std::string joined(const struct iovec* iov, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  return out;
}

class QueuePeekTest : public ::testing::Test {
 protected:
  // Frames spread over 64-byte blocks, one control frame ahead of them.
  void SetUp() override {
    ASSERT_TRUE(pool.ok());
    for (const std::string& text : {first, std::string("second"), std::string("third frame here")}) {
      buf::FrameRef frame = buf::make_frame(pool, buf::Lane::data, text);
      ASSERT_TRUE(frame);
      ASSERT_EQ(queue.push_data(std::move(frame)), conn::EnqueueStatus::ok);
    }
    ASSERT_EQ(queue.push_control(buf::make_frame(pool, buf::Lane::control, "[ctl]")), conn::EnqueueStatus::ok);
  }

  const std::string first = "first frame, " + std::string(150, '-') + " three blocks long";
  const std::string wire = "[ctl]" + first + "secondthird frame here";
  buf::Pool pool{{.block_count = 64, .block_size = 64, .reserve = 4, .prefault = false}};
  conn::OutQueue queue;
};

TEST_F(QueuePeekTest, PeeksAnyRangeInWireOrderWithoutTakingIt) {
  struct iovec iov[IOV_MAX];
  for (std::size_t skip = 0; skip <= wire.size(); ++skip) {
    for (std::size_t length : {std::size_t{1}, std::size_t{7}, std::size_t{100}}) {
      const Peeked got = peek(queue, skip, length, iov, IOV_MAX);
      EXPECT_EQ(joined(iov, got.count), wire.substr(skip, length)) << skip << "+" << length;
      EXPECT_EQ(got.bytes, std::min(length, wire.size() - skip));
    }
  }
  EXPECT_EQ(peekable(queue, 0, 1000, IOV_MAX), wire.size());
  EXPECT_EQ(queue.data_frames(), 3u);
  EXPECT_EQ(queue.control_frames(), 1u);
}

TEST_F(QueuePeekTest, APeekStopsAtTheIovecsItIsGiven) {
  struct iovec iov[2];
  const Peeked got = peek(queue, 0, 1000, iov, 2);
  EXPECT_EQ(got.count, 2);
  EXPECT_EQ(joined(iov, 2), wire.substr(0, got.bytes));
  EXPECT_LT(got.bytes, wire.size());
}

TEST_F(QueuePeekTest, TakesExactlyWhatWentOutAndReleasesWholeFrames) {
  EXPECT_EQ(take(queue, 10), 10u);
  EXPECT_EQ(queue.data_frames(), 3u);  // the first data frame is in flight
  EXPECT_EQ(queue.control_frames(), 0u);
  struct iovec iov[IOV_MAX];
  const Peeked rest = peek(queue, 0, 1000, iov, IOV_MAX);
  EXPECT_EQ(joined(iov, rest.count), wire.substr(10));
  EXPECT_EQ(take(queue, wire.size() - 10 - 16), wire.size() - 10 - 16);  // all but the third frame
  EXPECT_EQ(queue.data_frames(), 1u);
  std::string out(16, '\0');
  EXPECT_EQ(copy_out(queue, 0, 16, out.data()), 16u);
  EXPECT_EQ(out, "third frame here");
  EXPECT_EQ(take(queue, 100), 16u);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(take(queue, 5), 0u);
}

}  // namespace
}  // namespace sluice::transport
