// Pool(config) in the test firmware. The tests make pools of many shapes,
// so this one takes its arena from the test heap (the board's PSRAM); the
// core itself defines no Pool(config) for a microcontroller, where the
// application hands its pool a static array instead.
#include <cstdint>
#include <cstdlib>

#include "buf/pool.hpp"

namespace sluice::buf {

namespace {
void free_arena(char* arena, std::size_t) { std::free(arena); }
}  // namespace

Pool::Pool(const PoolConfig& config) : config_(config) {
  if (validate(config) != nullptr) return;
  const std::size_t bytes = arena_bytes(config);
  auto* arena = static_cast<char*>(std::malloc(bytes));  // newlib aligns to 8, kArenaAlign on Arm
  if (arena == nullptr) return;
  if (reinterpret_cast<std::uintptr_t>(arena) % kArenaAlign != 0) {
    std::free(arena);
    return;
  }
  unmap_ = &free_arena;
  adopt(arena, bytes);
}

}  // namespace sluice::buf
