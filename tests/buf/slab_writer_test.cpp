#include "buf/slab_writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frame_bytes.hpp"

namespace sluice::buf {
namespace {

FrameRef packed(Pool& pool, SlabWriter& slabs, const std::string& bytes) {
  FrameBuilder builder(pool, slabs, bytes.size());
  builder.append(bytes);
  return builder.finish();
}

TEST(SlabWriter, PacksSmallFramesIntoOneBlockEachReadingAsAFrameOfItsOwn) {
  Pool pool({.block_count = 8, .block_size = 4096, .reserve = 0});
  SlabWriter slabs;
  std::vector<FrameRef> frames;
  for (int i = 0; i < 20; ++i) frames.push_back(packed(pool, slabs, std::string(64, static_cast<char>('a' + i))));
  EXPECT_EQ(pool.free_blocks(), 7u);  // twenty 64-byte frames, one block
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(frames[i]);
    EXPECT_EQ(bytes_of(frames[i]), std::string(64, static_cast<char>('a' + i)));
    // What the out queue gathers: one block of `used` bytes, no chain.
    const Block* block = frames[i].first_block();
    EXPECT_EQ(block->used, 64u);
    EXPECT_EQ(block->next, nullptr);
    EXPECT_EQ(block->slab, slabs.open_slab());
    EXPECT_EQ(frames[i].use_count(), 1u);  // counted per frame, not per slab
  }
}

TEST(SlabWriter, ASlabGoesBackOnlyWithItsLastFrameAndItsWriter) {
  Pool pool({.block_count = 4, .block_size = 1024, .reserve = 0});
  SlabWriter slabs;
  FrameRef a = packed(pool, slabs, "first");
  FrameRef b = packed(pool, slabs, "second");
  FrameRef copy_of_b = b;
  EXPECT_EQ(pool.free_blocks(), 3u);
  slabs.let_go();
  a.reset();
  b.reset();
  EXPECT_EQ(pool.free_blocks(), 3u);  // copy_of_b still reads it
  EXPECT_EQ(bytes_of(copy_of_b), "second");
  copy_of_b.reset();
  EXPECT_EQ(pool.free_blocks(), 4u);
}

TEST(SlabWriter, TheWriterKeepsItsOpenSlabAfterItsFramesAreGone) {
  Pool pool({.block_count = 4, .block_size = 1024, .reserve = 0});
  SlabWriter slabs;
  packed(pool, slabs, "gone at once").reset();
  EXPECT_EQ(pool.free_blocks(), 3u);
  FrameRef next = packed(pool, slabs, "next");  // carved after it, no new block
  EXPECT_EQ(pool.free_blocks(), 3u);
  slabs.let_go();
  next.reset();
  EXPECT_EQ(pool.free_blocks(), 4u);
}

TEST(SlabWriter, AFullSlabIsLetGoAndTheNextFrameOpensAnother) {
  Pool pool({.block_count = 8, .block_size = 1024, .reserve = 0});
  SlabWriter slabs;
  // 48-byte header + 200 bytes, aligned: four fit in 1,024 bytes.
  std::vector<FrameRef> frames;
  for (int i = 0; i < 4; ++i) frames.push_back(packed(pool, slabs, std::string(200, 'x')));
  const Block* first_slab = slabs.open_slab();
  EXPECT_EQ(pool.free_blocks(), 7u);
  frames.push_back(packed(pool, slabs, std::string(200, 'y')));
  EXPECT_NE(slabs.open_slab(), first_slab);
  EXPECT_EQ(pool.free_blocks(), 6u);
  for (int i = 0; i < 4; ++i) frames[i].reset();
  EXPECT_EQ(pool.free_blocks(), 7u);  // the first slab went with its last frame
  EXPECT_EQ(bytes_of(frames[4]), std::string(200, 'y'));
}

TEST(SlabWriter, FramesOverAQuarterBlockGetBlocksOfTheirOwn) {
  Pool pool({.block_count = 8, .block_size = 1024, .reserve = 0});
  SlabWriter slabs;
  EXPECT_EQ(SlabWriter::max_packed(1024), 256u - sizeof(Block));
  FrameRef big = packed(pool, slabs, std::string(SlabWriter::max_packed(1024) + 1, 'b'));
  ASSERT_TRUE(big);
  EXPECT_EQ(big.first_block()->slab, nullptr);
  EXPECT_EQ(slabs.open_slab(), nullptr);
  FrameRef chain = packed(pool, slabs, std::string(3000, 'c'));
  EXPECT_EQ(bytes_of(chain), std::string(3000, 'c'));
  EXPECT_EQ(pool.free_blocks(), 4u);  // one block, then three
}

TEST(SlabWriter, EveryBlockSizePacksOrFallsBackToWholeBlocks) {
  // Too small for four headers: nothing packed, frames as before.
  EXPECT_EQ(SlabWriter::max_packed(64), 0u);
  EXPECT_EQ(SlabWriter::max_packed(128), 0u);
  EXPECT_EQ(SlabWriter::max_packed(16 << 20), (std::size_t{4} << 20) - sizeof(Block));
  for (const std::size_t block_size : {64u, 100u, 256u, 1000u, 4096u}) {
    Pool pool({.block_count = 64, .block_size = block_size, .reserve = 0});
    {
      SlabWriter slabs;
      std::vector<FrameRef> frames;
      for (std::size_t size : {0u, 1u, 7u, 16u, 64u, 65u, 300u}) {
        frames.push_back(packed(pool, slabs, std::string(size, 's')));
        ASSERT_TRUE(frames.back()) << block_size << " " << size;
        EXPECT_EQ(bytes_of(frames.back()), std::string(size, 's')) << block_size << " " << size;
        EXPECT_EQ(frames.back().first_block()->slab != nullptr, SlabWriter::packs(pool, size));
      }
    }
    EXPECT_EQ(pool.free_blocks(), 64u) << block_size;  // every block back, packed or not
  }
}

TEST(SlabWriter, WritingMoreThanReservedFailsAndTakesNothing) {
  Pool pool({.block_count = 4, .block_size = 1024, .reserve = 0});
  SlabWriter slabs;
  FrameBuilder builder(pool, slabs, 4);
  EXPECT_TRUE(builder.append(std::string_view{}));  // no bytes, no address
  EXPECT_TRUE(builder.append("abcd"));
  EXPECT_FALSE(builder.append("e"));
  EXPECT_FALSE(builder.finish());
  FrameRef next = packed(pool, slabs, "next");  // took the room the failed one had
  EXPECT_EQ(reinterpret_cast<const char*>(next.first_block()), slabs.open_slab()->data());
  EXPECT_EQ(bytes_of(next), "next");
}

TEST(SlabWriter, AFullPoolRefusesASlabAndThenGivesOneWhenABlockComesBack) {
  Pool pool({.block_count = 3, .block_size = 1024, .reserve = 1});
  FrameRef held = make_frame(pool, Lane::data, std::string(1024, 'h'));
  ASSERT_TRUE(held);
  FrameRef held2 = make_frame(pool, Lane::data, std::string(1024, 'h'));
  ASSERT_TRUE(held2);
  SlabWriter slabs;
  EXPECT_FALSE(packed(pool, slabs, "no room"));
  held.reset();
  FrameRef fits = packed(pool, slabs, "room");
  ASSERT_TRUE(fits);
  EXPECT_EQ(bytes_of(fits), "room");
}

TEST(SlabWriter, APackedFrameNeverGrowsIntoItsNeighbour) {
  Pool pool({.block_count = 4, .block_size = 1024, .reserve = 0});
  SlabWriter slabs;
  FrameRef frame = packed(pool, slabs, "mine");
  EXPECT_FALSE(frame.append_unshared("more"));
  FrameRef next = packed(pool, slabs, "next");
  EXPECT_EQ(bytes_of(frame), "mine");
  EXPECT_EQ(bytes_of(next), "next");
}

}  // namespace
}  // namespace sluice::buf
