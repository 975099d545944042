#include "buf/pool.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <vector>

namespace sluice::buf {
namespace {

TEST(Pool, DataCannotTakeTheReserve) {
  Pool pool({.block_count = 8, .block_size = 64, .reserve = 3});
  ASSERT_TRUE(pool.ok());
  std::vector<Block*> taken;
  while (Block* b = pool.acquire(Lane::data)) taken.push_back(b);
  EXPECT_EQ(taken.size(), 5u);
  EXPECT_EQ(pool.free_blocks(), 3u);
  EXPECT_EQ(pool.stats().data_refusals, 1u);

  while (Block* b = pool.acquire(Lane::control)) taken.push_back(b);
  EXPECT_EQ(taken.size(), 8u);
  EXPECT_EQ(pool.free_blocks(), 0u);
  EXPECT_EQ(pool.stats().control_refusals, 1u);
  EXPECT_EQ(pool.stats().min_free_blocks, 0u);

  for (Block* b : taken) pool.release(b);
  EXPECT_EQ(pool.free_blocks(), 8u);
}

TEST(Pool, ReleasesAWholeChain) {
  Pool pool({.block_count = 4, .block_size = 64, .reserve = 0});
  Block* a = pool.acquire(Lane::data);
  Block* b = pool.acquire(Lane::data);
  a->next = b;
  pool.release(a);
  EXPECT_EQ(pool.free_blocks(), 4u);
}

TEST(Pool, BlocksDoNotOverlap) {
  Pool pool({.block_count = 16, .block_size = 100, .reserve = 0});
  std::vector<Block*> taken;
  while (Block* b = pool.acquire(Lane::data)) {
    for (int i = 0; i < 100; ++i) b->data()[i] = static_cast<char>(taken.size());
    taken.push_back(b);
  }
  for (std::size_t n = 0; n < taken.size(); ++n) {
    for (int i = 0; i < 100; ++i) ASSERT_EQ(taken[n]->data()[i], static_cast<char>(n));
    pool.release(taken[n]);
  }
}

// Resident bytes of this process (/proc/self/statm).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

TEST(Pool, ALazyPoolTakesMemoryAsBlocksAreUsedAPrefaultedOneAtStart) {
  constexpr std::size_t kBlocks = 8192;  // 32 MiB of payload
  const std::size_t arena = kBlocks * 4096;
  const std::size_t before_lazy = resident_bytes();
  const Pool lazy({.block_count = kBlocks, .block_size = 4096, .reserve = 1, .prefault = false});
  ASSERT_TRUE(lazy.ok());
  EXPECT_LT(resident_bytes() - before_lazy, arena / 4);
  const std::size_t before = resident_bytes();
  const Pool prefaulted({.block_count = kBlocks, .block_size = 4096, .reserve = 1, .prefault = true});
  ASSERT_TRUE(prefaulted.ok());
  EXPECT_GE(resident_bytes() - before, arena);
}

TEST(Pool, RejectsConfigsThatCannotWork) {
  EXPECT_NE(Pool::validate({.block_count = 8, .block_size = 16, .reserve = 0}), nullptr);
  EXPECT_NE(Pool::validate({.block_count = 8, .block_size = 64, .reserve = 8}), nullptr);
  EXPECT_NE(Pool::validate({.block_count = 0, .block_size = 64, .reserve = 0}), nullptr);
  EXPECT_EQ(Pool::validate({.block_count = 8, .block_size = 64, .reserve = 7}), nullptr);
  EXPECT_FALSE(Pool({.block_count = 8, .block_size = 16, .reserve = 0}).ok());
}

}  // namespace
}  // namespace sluice::buf
