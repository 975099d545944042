#include "embedded/lwip/ack_hold.hpp"

#include <gtest/gtest.h>

#include <string>

#include "buf/pool.hpp"

namespace sluice::embedded::lwip {
namespace {

struct AckHoldTest : testing::Test {
  buf::FrameRef frame(std::size_t size) { return buf::make_frame(pool, buf::Lane::data, std::string(size, 'x')); }
  std::size_t blocks_in_use() const { return pool.stats().block_count - pool.free_blocks(); }

  buf::Pool pool{{.block_count = 64, .block_size = 64, .reserve = 0}};
  AckHold::Slot slots[4];
  AckHold hold{slots};
};

TEST_F(AckHoldTest, AFrameIsReleasedWhenTheAcknowledgementPassesItsLastByte) {
  hold.started(frame(100));  // 2 blocks, bytes [0, 100)
  hold.started(frame(10));   // 1 block, bytes [100, 110)
  EXPECT_EQ(hold.held(), 2u);
  EXPECT_EQ(blocks_in_use(), 3u);
  hold.acked(99);
  EXPECT_EQ(hold.held(), 2u);
  hold.acked(1);
  EXPECT_EQ(hold.held(), 1u);
  EXPECT_EQ(blocks_in_use(), 1u);
  hold.acked(10);
  EXPECT_TRUE(hold.empty());
  EXPECT_EQ(blocks_in_use(), 0u);
}

TEST_F(AckHoldTest, OneAcknowledgementCanReleaseSeveralFramesAndAFinByteIsHarmless) {
  for (int i = 0; i < 3; ++i) hold.started(frame(20));
  hold.acked(61);  // 60 bytes and the FIN's sequence number
  EXPECT_TRUE(hold.empty());
  EXPECT_EQ(blocks_in_use(), 0u);
}

TEST_F(AckHoldTest, EmptyFramesAreNotHeldAndTheRingIsFixed) {
  hold.started(frame(0));
  EXPECT_TRUE(hold.empty());
  for (int i = 0; i < 4; ++i) hold.started(frame(8));
  EXPECT_EQ(hold.free_slots(), 0u);
  hold.acked(8);
  EXPECT_EQ(hold.free_slots(), 1u);
  hold.release_all();
  EXPECT_TRUE(hold.empty());
  EXPECT_EQ(blocks_in_use(), 0u);
}

TEST_F(AckHoldTest, OffsetsWrapAroundLikeSequenceNumbers) {
  AckHold::Slot more[4];
  AckHold wrapping(more, 0xFFFFFFF0u);  // a sequence number 16 bytes short of the wrap
  wrapping.started(frame(10));          // ends before the wrap
  wrapping.started(frame(20));          // ends past it
  wrapping.acked(10);
  EXPECT_EQ(wrapping.held(), 1u);
  wrapping.acked(19);
  EXPECT_EQ(wrapping.held(), 1u);
  wrapping.acked(1);
  EXPECT_TRUE(wrapping.empty());
  EXPECT_EQ(blocks_in_use(), 0u);
}

TEST_F(AckHoldTest, AcknowledgementsBeyondTheFramesDoNotReleaseLaterOnes) {
  hold.started(frame(10));
  hold.acked(11);  // the frame and a FIN
  EXPECT_TRUE(hold.empty());
  hold.started(frame(10));
  EXPECT_EQ(hold.held(), 1u);  // the extra byte counted for nothing
  hold.acked(9);
  EXPECT_EQ(hold.held(), 1u);
  hold.acked(1);
  EXPECT_TRUE(hold.empty());
}

}  // namespace
}  // namespace sluice::embedded::lwip
