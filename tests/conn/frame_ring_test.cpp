#include "conn/frame_ring.hpp"

#include <gtest/gtest.h>

#include <array>

namespace sluice::conn::detail {
namespace {

QueuedFrame labelled(std::uint64_t n) { return {.frame = {}, .label = {.words = {n, 0, 0}}}; }

// A ring that emptied gives its heap slots back, and the next push takes
// `initial` again, the order of what is queued after that kept.
TEST(FrameRing, AnEmptyRingGivesItsSlotsBackAndTakesThemAgainWhenUsed) {
  FrameRing ring(4, 64);
  EXPECT_EQ(ring.capacity(), 0u);
  for (std::uint64_t i = 0; i < 6; ++i) ring.push(labelled(i));
  EXPECT_EQ(ring.capacity(), 8u);
  for (std::uint64_t i = 0; i < 6; ++i) EXPECT_EQ(ring.pop().label.words[0], i);
  ring.give_back();
  EXPECT_EQ(ring.capacity(), 0u);
  for (std::uint64_t i = 10; i < 13; ++i) ring.push(labelled(i));
  EXPECT_EQ(ring.capacity(), 4u);
  for (std::uint64_t i = 10; i < 13; ++i) EXPECT_EQ(ring.pop().label.words[0], i);
}

// Slots with a frame in them are never given back.
TEST(FrameRing, ARingWithAnEntryKeepsItsSlots) {
  FrameRing ring(4, 64);
  ring.push(labelled(7));
  ring.give_back();
  EXPECT_EQ(ring.capacity(), 4u);
  EXPECT_EQ(ring.pop().label.words[0], 7u);
}

// A ring in the caller's memory keeps it: there is no heap to give back to.
TEST(FrameRing, SlotsInTheCallersMemoryStay) {
  std::array<QueuedFrame, 3> slots;
  FrameRing ring{std::span<QueuedFrame>(slots)};
  ring.give_back();
  EXPECT_EQ(ring.capacity(), 3u);
  ring.push(labelled(1));
  EXPECT_EQ(ring.pop().label.words[0], 1u);
}

}  // namespace
}  // namespace sluice::conn::detail
