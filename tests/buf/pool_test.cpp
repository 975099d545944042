#include "buf/pool.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <span>
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

TEST(Pool, TakesItsBlocksFromTheCallersMemoryAndNothingElse) {
  constexpr PoolConfig kConfig{.block_count = 8, .block_size = 96, .reserve = 2};
  alignas(Pool::kArenaAlign) static std::byte memory[Pool::arena_bytes(kConfig)];
  Pool pool(kConfig, memory);
  ASSERT_TRUE(pool.ok());
  std::vector<Block*> taken;
  while (Block* b = pool.acquire(Lane::control)) {
    const auto* first = reinterpret_cast<const std::byte*>(b);
    const auto* last = reinterpret_cast<const std::byte*>(b->data()) + pool.block_size();
    EXPECT_GE(first, memory);
    EXPECT_LE(last, memory + sizeof memory);
    taken.push_back(b);
  }
  EXPECT_EQ(taken.size(), 8u);
  for (Block* b : taken) pool.release(b);
  EXPECT_EQ(pool.free_blocks(), 8u);
}

TEST(Pool, RefusesCallerMemoryTooSmallOrMisaligned) {
  constexpr PoolConfig kConfig{.block_count = 4, .block_size = 64, .reserve = 0};
  alignas(Pool::kArenaAlign) static std::byte memory[Pool::arena_bytes(kConfig) + Pool::kArenaAlign];
  EXPECT_TRUE(Pool(kConfig, memory).ok());
  EXPECT_FALSE(Pool(kConfig, std::span(memory, Pool::arena_bytes(kConfig) - 1)).ok());
  EXPECT_FALSE(Pool(kConfig, std::span(memory + 1, Pool::arena_bytes(kConfig))).ok());
  EXPECT_FALSE(Pool({.block_count = 4, .block_size = 16, .reserve = 0}, memory).ok());
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
