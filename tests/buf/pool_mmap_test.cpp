// The pool's memory from Linux: a lazy pool holds pages only as its blocks
// are used, a prefaulted one holds them all from the start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "buf/pool.hpp"

namespace sluice::buf {
namespace {

// Resident bytes of this process (/proc/self/statm).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

TEST(PoolMmap, ALazyPoolTakesMemoryAsBlocksAreUsedAPrefaultedOneAtStart) {
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

}  // namespace
}  // namespace sluice::buf
