#include "server/pool_shedding.hpp"

#include <algorithm>

namespace sluice::server {

// A reader counted behind at n looks in a row has been so for at least
// n - 1 sweep periods (the first look may come right after its last frame).
std::uint32_t PoolShedding::looks_for(std::int64_t after_ms, std::chrono::milliseconds period) {
  if (after_ms <= 0) return 0;
  const std::int64_t step = std::max<std::int64_t>(period.count(), 1);
  const std::int64_t periods = (after_ms + step - 1) / step;
  return static_cast<std::uint32_t>(std::min<std::int64_t>(periods + 1, UINT32_MAX));
}

// The looks since the last refusal, not the refusal alone: a reader is
// behind long enough only `looks` looks after it took its last frame,
// which may come after the first publish it made the pool refuse.
bool PoolShedding::pressed(const buf::PoolStats& pool, std::uint64_t room_refusals, std::uint32_t looks) {
  if (room_refusals != refusals_seen_) {
    looks_since_refusal_ = 0;
  } else if (looks_since_refusal_ < UINT32_MAX) {
    ++looks_since_refusal_;
  }
  refusals_seen_ = room_refusals;
  const std::size_t data_free = pool.free_blocks > pool.reserve ? pool.free_blocks - pool.reserve : 0;
  return looks_since_refusal_ / 2 < looks && data_free < pool.block_count / 16;
}

}  // namespace sluice::server
