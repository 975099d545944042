#include "buf/frame.hpp"

#include <gtest/gtest.h>

#include <string>

#include "frame_bytes.hpp"

namespace sluice::buf {
namespace {

TEST(FrameBuilder, SpansBlocksAndKeepsEveryByte) {
  Pool pool({.block_count = 8, .block_size = 64, .reserve = 0});
  std::string payload(200, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  FrameBuilder b(pool, Lane::data);
  b.append(payload.substr(0, 50));
  b.append(payload.substr(50));
  FrameRef f = b.finish();
  ASSERT_TRUE(f);
  EXPECT_EQ(f.size(), 200u);
  EXPECT_EQ(bytes_of(f), payload);
  EXPECT_EQ(pool.free_blocks(), 4u);
  f.reset();
  EXPECT_EQ(pool.free_blocks(), 8u);
}

TEST(FrameBuilder, FailsWholeWhenThePoolRunsOutAndGivesBlocksBack) {
  Pool pool({.block_count = 4, .block_size = 64, .reserve = 1});
  FrameBuilder b(pool, Lane::data);
  EXPECT_FALSE(b.append(std::string(64 * 4, 'x')));
  EXPECT_TRUE(b.failed());
  EXPECT_FALSE(b.append("more"));
  EXPECT_FALSE(b.finish());
  EXPECT_EQ(pool.free_blocks(), 4u);
}

TEST(FrameBuilder, ControlLaneMayUseTheReserve) {
  Pool pool({.block_count = 3, .block_size = 64, .reserve = 2});
  FrameRef data = make_frame(pool, Lane::data, "event");
  ASSERT_TRUE(data);
  EXPECT_FALSE(make_frame(pool, Lane::data, "event"));
  FrameRef pong = make_frame(pool, Lane::control, "pong");
  ASSERT_TRUE(pong);
  EXPECT_EQ(bytes_of(pong), "pong");
}

TEST(FrameRef, SharedFrameIsReleasedWithTheLastReference) {
  Pool pool({.block_count = 4, .block_size = 64, .reserve = 0});
  FrameRef a = make_frame(pool, Lane::data, "event");
  FrameRef b = a;
  FrameRef c;
  c = b;
  EXPECT_EQ(a.use_count(), 3u);
  EXPECT_TRUE(a == c);
  a.reset();
  b = FrameRef();
  EXPECT_EQ(pool.free_blocks(), 3u);
  FrameRef d = std::move(c);
  EXPECT_FALSE(c);
  EXPECT_EQ(d.use_count(), 1u);
  d.reset();
  EXPECT_EQ(pool.free_blocks(), 4u);
}

// An uncounted handle reads the same frame and leaves its count alone,
// taken and given up: the frame goes with its last counted reference.
TEST(FrameRef, AnUncountedHandleNeitherTakesNorGivesBackACount) {
  Pool pool({.block_count = 4, .block_size = 64, .reserve = 0});
  FrameRef counted = make_frame(pool, Lane::data, "event");
  FrameRef handle = FrameRef::uncounted(counted);
  EXPECT_TRUE(handle == counted);
  EXPECT_EQ(bytes_of(handle), "event");
  EXPECT_EQ(counted.use_count(), 1u);
  handle.forget();
  EXPECT_FALSE(handle);
  EXPECT_EQ(counted.use_count(), 1u);
  EXPECT_EQ(pool.free_blocks(), 3u);
  counted.reset();
  EXPECT_EQ(pool.free_blocks(), 4u);
}

TEST(FrameRef, CopiesFromAnOffset) {
  Pool pool({.block_count = 4, .block_size = 64, .reserve = 0});
  std::string payload(150, 'z');
  payload[100] = 'A';
  FrameRef f = make_frame(pool, Lane::data, payload);
  char out[4];
  ASSERT_EQ(f.copy_to(out, 4, 100), 4u);
  EXPECT_EQ(std::string(out, 4), "Azzz");
}

TEST(FrameRef, GrowsInPlaceOnlyWhileNobodyElseHoldsItAndItsLastBlockHasRoom) {
  Pool pool({.block_count = 4, .block_size = 64, .reserve = 0});
  FrameRef f = make_frame(pool, Lane::control, std::string(70, 'a'));  // 64 + 6
  EXPECT_TRUE(f.append_unshared("bcd"));
  EXPECT_EQ(bytes_of(f), std::string(70, 'a') + "bcd");
  EXPECT_FALSE(f.append_unshared(std::string(56, 'x')));  // 9 + 56 > 64: no block is taken
  EXPECT_EQ(f.size(), 73u);
  EXPECT_EQ(pool.free_blocks(), 2u);
  const FrameRef other = f;
  EXPECT_FALSE(f.append_unshared("e"));
  EXPECT_EQ(other.size(), 73u);
  EXPECT_FALSE(FrameRef().append_unshared("e"));
}

TEST(FrameBuilder, EmptyFrameIsValid) {
  Pool pool({.block_count = 1, .block_size = 64, .reserve = 0});
  FrameBuilder b(pool, Lane::data);
  FrameRef f = b.finish();
  ASSERT_TRUE(f);
  EXPECT_EQ(f.size(), 0u);
}

}  // namespace
}  // namespace sluice::buf
