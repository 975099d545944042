// Owns: Pool, the fixed set of equal-size blocks that holds every payload
// byte sluice queues. The blocks are allocated once, when the pool is made,
// and never grow: the pool's size is the process's payload memory ceiling.
//
// Bulk data must never starve control traffic: a shared pool that data can
// drain leaves no room for the packets that would let the system recover
// (acknowledgements, pongs, closes), and it freezes. So the last `reserve`
// blocks are for Lane::control only. Data
// allocations fail while no more than `reserve` blocks are free; pongs,
// close frames, handshake replies, error responses and heartbeats still get
// theirs.
//
// Any thread may acquire and release: a frame built by a publisher thread is
// released by the loop thread that wrote its last byte. A spinlock guards
// the free list; it is held for a pointer swap, so it never spins for long,
// and it needs nothing from the OS (the pool must run on a microcontroller).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

namespace sluice::buf {

class Pool;

enum class Lane : std::uint8_t { data, control };

struct PoolConfig {
  std::size_t block_count = 16384;  // 64 MiB at the default block size
  std::size_t block_size = 4096;    // payload bytes per block
  std::size_t reserve = 256;        // blocks that only Lane::control may take
  // Fault every page in at start: the process holds the pool's whole size
  // from then on, and no publish waits for the kernel to zero a page (tens
  // of microseconds per 4 KiB, milliseconds per huge page, on a VM). Off:
  // pages fault in as blocks are first used.
  bool prefault = true;
};

struct PoolStats {
  std::size_t block_count = 0;
  std::size_t block_size = 0;
  std::size_t reserve = 0;
  std::size_t free_blocks = 0;
  std::size_t min_free_blocks = 0;  // low-water mark since the pool was made
  std::uint64_t data_refusals = 0;  // data acquisitions refused (reserve hit), asked again or not
  std::uint64_t control_refusals = 0;  // control acquisitions refused (empty)
};

// One block: a small header followed by `block_size` payload bytes. The first
// block of a frame also carries the frame's reference count and length. A
// small frame packed into a shared block (buf/slab_writer.hpp) has a header
// of this shape of its own, inside that block, and `slab` names the block.
struct Block {
  Block* next = nullptr;       // next block of the frame, or of the free list
  Pool* pool = nullptr;        // the pool the block returns to
  std::atomic<std::uint32_t> refs{0};  // first block of a frame only
  std::uint32_t used = 0;      // payload bytes in this block
  std::size_t frame_size = 0;    // first block of a frame only
  // A packed frame's header only: the pool block it is carved from, whose
  // refs count its live frames (and its writer). nullptr for a pool block.
  // (Before published_ns: on a 32-bit target it fills the padding there.)
  Block* slab = nullptr;
  // First block of a frame only: when the event it carries was published,
  // in steady-clock nanoseconds; 0 for a frame that carries no event.
  std::int64_t published_ns = 0;

  char* data() { return reinterpret_cast<char*>(this + 1); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
};

class Pool {
 public:
  // Alignment the memory of a pool must have.
  static constexpr std::size_t kArenaAlign = alignof(std::max_align_t);

  // Bytes between two blocks, and bytes a pool of `config` takes in all:
  // each block's payload behind its header, aligned.
  [[nodiscard]] static constexpr std::size_t block_stride(std::size_t block_size) {
    return (sizeof(Block) + block_size + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
  }
  [[nodiscard]] static constexpr std::size_t arena_bytes(const PoolConfig& config) {
    return block_stride(config.block_size) * config.block_count;
  }

  // Takes every block from the system now (an anonymous mapping; defined
  // with the platform, buf/pool_mmap.cpp on Linux: a bare-metal build has
  // none and hands its memory in instead). Check ok(): false when the
  // memory could not be had or the config is invalid (see validate()).
  explicit Pool(const PoolConfig& config);

  // Cuts the blocks out of `memory`, which the caller owns and keeps alive
  // as long as the pool: at least arena_bytes(config) bytes aligned to
  // kArenaAlign (ok() is false otherwise). The pool takes nothing else from
  // the system, then or later, so a device can give it a static array at
  // start-up and have no heap afterwards. `prefault` does not apply.
  Pool(const PoolConfig& config, std::span<std::byte> memory);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Returns nullptr when `config` is usable, else a static message naming
  // the broken rule (block_size 64..16 MiB, reserve < block_count).
  [[nodiscard]] static const char* validate(const PoolConfig& config);

  [[nodiscard]] bool ok() const { return arena_ != nullptr; }

  // Takes one block, or returns nullptr: for Lane::data when no more than
  // `reserve` blocks are free, for Lane::control when none are. Never
  // allocates. The block comes back with next == nullptr and used == 0.
  [[nodiscard]] Block* acquire(Lane lane);

  // Returns a chain of blocks linked by `next` to the free list.
  void release(Block* chain);

  // True when `count` blocks could be acquired for `lane` right now.
  [[nodiscard]] bool can_acquire(Lane lane, std::size_t count) const;

  [[nodiscard]] std::size_t block_size() const { return config_.block_size; }
  [[nodiscard]] std::size_t free_blocks() const;
  [[nodiscard]] PoolStats stats() const;

 private:
  class Guard;
  void adopt(char* arena, std::size_t bytes);
  Block* take_free_block();
  [[nodiscard]] bool can_acquire_locked(Lane lane, std::size_t count) const;

  mutable std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
  PoolConfig config_;
  char* arena_ = nullptr;
  std::size_t arena_bytes_ = 0;
  void (*unmap_)(char* arena, std::size_t bytes) = nullptr;  // null: the caller's memory
  std::size_t fresh_next_ = 0;  // blocks [fresh_next_, block_count) were never handed out
  std::size_t stride_ = 0;
  Block* free_list_ = nullptr;
  std::size_t free_count_ = 0;
  std::size_t min_free_ = 0;
  std::uint64_t data_refusals_ = 0;
  std::uint64_t control_refusals_ = 0;
};

}  // namespace sluice::buf
