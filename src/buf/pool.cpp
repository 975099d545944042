// Pool: one arena cut into equal blocks. Blocks never used yet are handed
// out from the arena's untouched tail, so a large pool costs no page faults
// until it is used; released blocks go on an intrusive free list. Acquire
// and release are a pointer swap each; the arena, one anonymous mapping, is
// the only memory the pool ever takes from the system.
#include "buf/pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>

namespace sluice::buf {

namespace {
constexpr std::size_t kMinBlockSize = 64;
constexpr std::size_t kMaxBlockSize = std::size_t{16} << 20;
constexpr std::size_t kAlign = alignof(std::max_align_t);

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
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

Pool::Pool(const PoolConfig& config) : config_(config) {
  if (validate(config) != nullptr) return;
  stride_ = round_up(sizeof(Block) + config.block_size, kAlign);
  arena_bytes_ = stride_ * config.block_count;
  // Mapped, not touched: a block's pages fault in on its first use. Each
  // fault is costly (tens of microseconds on a VM), so the arena asks for
  // transparent huge pages: a 2 MiB fault covers ~500 blocks of 4 KiB.
  void* arena = ::mmap(nullptr, arena_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (arena == MAP_FAILED) return;
  arena_ = static_cast<char*>(arena);
  (void)::madvise(arena_, arena_bytes_, MADV_HUGEPAGE);  // advice: no THP just means 4 KiB faults
  if (config.prefault && ::madvise(arena_, arena_bytes_, MADV_POPULATE_WRITE) != 0) {
    // A kernel older than 5.14: the same, a write per page.
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    for (std::size_t at = 0; at < arena_bytes_; at += page) arena_[at] = 0;
  }
  free_count_ = config.block_count;
  min_free_ = free_count_;
}

Pool::~Pool() {
  if (arena_ == nullptr) return;
  for (std::size_t i = 0; i < fresh_next_; ++i) reinterpret_cast<Block*>(arena_ + i * stride_)->~Block();
  ::munmap(arena_, arena_bytes_);
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
