// Pool: one arena cut into equal blocks. Blocks never used yet are handed
// out from the arena's untouched tail, so a large pool costs no page faults
// until it is used; released blocks go on an intrusive free list. Acquire
// and release are a pointer swap each; the arena (the caller's memory, or
// one mapping from the system made by pool_mmap.cpp) is the only memory the
// pool ever holds. Nothing here needs an operating system.
#include "buf/pool.hpp"

#include <algorithm>
#include <cstdint>
#include <new>

namespace sluice::buf {

namespace {
constexpr std::size_t kMinBlockSize = 64;
constexpr std::size_t kMaxBlockSize = std::size_t{16} << 20;
}  // namespace

// Holds the pool's spinlock for one short critical section.
class Pool::Guard {
 public:
  explicit Guard(const Pool& pool) : lock_(pool.lock_) {
    while (lock_.test_and_set(std::memory_order_acquire)) {
      while (lock_.test(std::memory_order_relaxed)) {
      }
    }
  }
  ~Guard() { lock_.clear(std::memory_order_release); }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  std::atomic_flag& lock_;
};

const char* Pool::validate(const PoolConfig& config) {
  if (config.block_size < kMinBlockSize || config.block_size > kMaxBlockSize) {
    return "block_size must be between 64 and 16777216 bytes";
  }
  if (config.block_count == 0) return "block_count must be at least 1";
  if (config.reserve >= config.block_count) return "reserve must be smaller than block_count";
  return nullptr;
}

Pool::Pool(const PoolConfig& config, std::span<std::byte> memory) : config_(config) {
  if (validate(config) != nullptr || memory.size() < arena_bytes(config)) return;
  if (reinterpret_cast<std::uintptr_t>(memory.data()) % kArenaAlign != 0) return;
  adopt(reinterpret_cast<char*>(memory.data()), memory.size());
}

void Pool::adopt(char* arena, std::size_t bytes) {
  stride_ = block_stride(config_.block_size);
  arena_ = arena;
  arena_bytes_ = bytes;
  free_count_ = config_.block_count;
  min_free_ = free_count_;
}

Pool::~Pool() {
  if (arena_ == nullptr) return;
  for (std::size_t i = 0; i < fresh_next_; ++i) reinterpret_cast<Block*>(arena_ + i * stride_)->~Block();
  if (unmap_ != nullptr) unmap_(arena_, arena_bytes_);
}

Block* Pool::take_free_block() {
  if (free_list_ != nullptr) {
    Block* block = free_list_;
    free_list_ = block->next;
    return block;
  }
  auto* block = new (arena_ + fresh_next_++ * stride_) Block{};
  block->pool = this;
  return block;
}

bool Pool::can_acquire(Lane lane, std::size_t count) const {
  const Guard guard(*this);
  return can_acquire_locked(lane, count);
}

std::size_t Pool::free_blocks() const {
  const Guard guard(*this);
  return free_count_;
}

bool Pool::can_acquire_locked(Lane lane, std::size_t count) const {
  const std::size_t floor = lane == Lane::data ? config_.reserve : 0;
  return free_count_ >= floor + count;
}

Block* Pool::acquire(Lane lane) {
  const Guard guard(*this);
  if (!can_acquire_locked(lane, 1)) {
    ++(lane == Lane::data ? data_refusals_ : control_refusals_);
    return nullptr;
  }
  Block* block = take_free_block();
  --free_count_;
  min_free_ = std::min(min_free_, free_count_);
  block->next = nullptr;
  block->used = 0;
  block->frame_size = 0;
  block->published_ns = 0;
  block->slab = nullptr;
  block->refs.store(0, std::memory_order_relaxed);
  return block;
}

void Pool::release(Block* chain) {
  const Guard guard(*this);
  while (chain != nullptr) {
    Block* next = chain->next;
    chain->next = free_list_;
    free_list_ = chain;
    ++free_count_;
    chain = next;
  }
}

PoolStats Pool::stats() const {
  const Guard guard(*this);
  return PoolStats{config_.block_count, config_.block_size, config_.reserve, free_count_,
                   min_free_,           data_refusals_,     control_refusals_};
}

}  // namespace sluice::buf
