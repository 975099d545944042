// Owns: SlabWriter, which packs small frames side by side into one shared
// pool block (a slab) instead of giving each frame a block of its own.
//
// A 64-byte event would otherwise hold a whole block (4 KiB by default) for
// its payload and one for each wire form: the pool would keep a few
// thousand small events where it has room for hundreds of thousands. A
// packed frame is a Block header written inside the slab, followed by its
// bytes: to every reader (FrameRef, the out queue's gather, a run's copy)
// it is a frame of one block like any other. Its header counts the frame's
// own references; the slab's header counts the frames alive in it plus one
// for the writer while the writer still carves from it. When a frame's last
// reference goes it gives up its count on the slab, and the slab goes back
// to the pool with the last of its frames and its writer, on whichever
// thread that happens.
//
// What a packed frame can pin: its slab, one block, which is what the frame
// would have held unpacked. Every slab the writer has let go of holds at
// least one live frame, so the blocks held by packed frames are never more
// than the live packed frames plus each writer's open slab. Only frames up
// to max_packed() (a quarter of a block, less the header) are packed, so a
// slab holds at least four and the room a slab's tail wastes when the next
// frame does not fit stays under a quarter of it. Blocks too small for that
// (under 196 bytes: four headers) pack nothing.
//
// One thread at a time writes through a writer (its owner serialises: a
// loop, a Publisher's own scratch, a publisher's borrowed one), and one
// frame at a time: reserve(), fill, commit(). FrameBuilder does that for a
// frame whose size is known before it is written. Nothing here allocates from the heap or needs an
// operating system.
#pragma once

#include <cstddef>

#include "buf/frame.hpp"
#include "buf/pool.hpp"

namespace sluice::buf {

class SlabWriter {
 public:
  SlabWriter() = default;
  ~SlabWriter() { let_go(); }
  SlabWriter(const SlabWriter&) = delete;
  SlabWriter& operator=(const SlabWriter&) = delete;

  // The largest frame packed into blocks of `block_size` bytes: 0 when the
  // block is too small to hold four headers.
  [[nodiscard]] static constexpr std::size_t max_packed(std::size_t block_size) {
    const std::size_t quarter = block_size / kMinFramesPerSlab;
    return quarter > sizeof(Block) ? quarter - sizeof(Block) : 0;
  }
  [[nodiscard]] static bool packs(const Pool& pool, std::size_t size) {
    return size <= max_packed(pool.block_size()) && max_packed(pool.block_size()) != 0;
  }

  // Where a frame of up to `size` bytes (packs(pool, size)) is to be
  // written: its bytes go at bytes_at(the returned header). Takes a fresh
  // slab from `pool` (data lane) when the open one has no room; nullptr
  // when the pool refuses it. Nothing is taken until commit().
  [[nodiscard]] Block* reserve(Pool& pool, std::size_t size);
  // Where a reserved frame's bytes go. Not the header's data(): the
  // header is not a Block until commit() makes it one.
  [[nodiscard]] static char* bytes_at(Block* header) { return reinterpret_cast<char*>(header) + sizeof(Block); }
  // Makes the frame at `header` (from reserve(), `size` bytes written, no
  // more than reserved) a frame of its own, its slab counted once more.
  [[nodiscard]] FrameRef commit(Block* header, std::size_t size);

  // Gives up the open slab: it goes back to the pool once its frames have.
  void let_go();

  // The slab frames are carved from now, or nullptr: for tests.
  [[nodiscard]] const Block* open_slab() const { return slab_; }

  // A packed frame's last reference went: its slab loses one count.
  static void release_from(Block* slab);

 private:
  static constexpr std::size_t kMinFramesPerSlab = 4;

  Block* slab_ = nullptr;  // one of its refs is this writer's; `used` is how far it is carved
};

}  // namespace sluice::buf
