#include "server/pool_shedding.hpp"

#include <gtest/gtest.h>

namespace sluice::server {
namespace {

using std::chrono::milliseconds;

TEST(PoolShedding, LooksCoverTheWholeWaitWhateverThePeriod) {
  // n looks in a row span at least n - 1 periods.
  EXPECT_EQ(PoolShedding::looks_for(1000, milliseconds(500)), 3u);
  EXPECT_EQ(PoolShedding::looks_for(1001, milliseconds(500)), 4u);
  EXPECT_EQ(PoolShedding::looks_for(200, milliseconds(500)), 2u);
  EXPECT_EQ(PoolShedding::looks_for(1, milliseconds(10)), 2u);
  EXPECT_EQ(PoolShedding::looks_for(0, milliseconds(500)), 0u);  // never
}

buf::PoolStats pool(std::size_t free_blocks) {
  return {.block_count = 1600, .block_size = 4096, .reserve = 100, .free_blocks = free_blocks,
          .min_free_blocks = 0, .data_refusals = 0, .control_refusals = 0};
}

// A refusal here is the book's: the pool short and no kept event able to
// give way.
TEST(PoolShedding, PressedWhileARefusalIsRecentAndLittleIsFree) {
  PoolShedding shedding;
  EXPECT_FALSE(shedding.pressed(pool(100), 0, 3));  // empty, but nobody was refused
  EXPECT_TRUE(shedding.pressed(pool(100), 5, 3));   // refused, and nothing free for data
  EXPECT_TRUE(shedding.pressed(pool(199), 5, 3));   // the refusal one look ago; 99 data blocks free: under a sixteenth
  for (int i = 2; i < 6; ++i) EXPECT_TRUE(shedding.pressed(pool(100), 5, 3)) << i;
  EXPECT_FALSE(shedding.pressed(pool(100), 5, 3));  // six looks ago: too long
  EXPECT_TRUE(shedding.pressed(pool(100), 6, 3));   // refused again
  EXPECT_FALSE(shedding.pressed(pool(200), 7, 3));  // a sixteenth free: a big frame was refused, not the pool full
}

}  // namespace
}  // namespace sluice::server
