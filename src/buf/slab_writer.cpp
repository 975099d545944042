#include "buf/slab_writer.hpp"

#include <algorithm>
#include <new>

namespace sluice::buf {

namespace {

// Headers inside a slab are placed at offsets that keep them aligned.
constexpr std::size_t aligned(std::size_t n) { return (n + alignof(Block) - 1) / alignof(Block) * alignof(Block); }

}  // namespace

Block* SlabWriter::reserve(Pool& pool, std::size_t size) {
  const std::size_t need = sizeof(Block) + size;
  if (slab_ != nullptr && (slab_->pool != &pool || pool.block_size() - slab_->used < need)) let_go();
  if (slab_ == nullptr) {
    slab_ = pool.acquire(Lane::data);
    if (slab_ == nullptr) return nullptr;
    slab_->refs.store(1, std::memory_order_relaxed);  // the writer's
  }
  return reinterpret_cast<Block*>(slab_->data() + slab_->used);
}

FrameRef SlabWriter::commit(Block* header, std::size_t size) {
  auto* frame = new (header) Block{};
  frame->pool = slab_->pool;
  frame->slab = slab_;
  frame->used = static_cast<std::uint32_t>(size);
  frame->frame_size = size;
  frame->refs.store(1, std::memory_order_relaxed);
  // Relaxed: the writer's own count keeps the slab alive, and the frame
  // reaches another thread only through whatever hands it over.
  slab_->refs.fetch_add(1, std::memory_order_relaxed);
  const std::size_t end = reinterpret_cast<char*>(header) - slab_->data() + aligned(sizeof(Block) + size);
  slab_->used = static_cast<std::uint32_t>(std::min(end, slab_->pool->block_size()));
  return FrameRef::adopt(frame);
}

void SlabWriter::let_go() {
  if (slab_ != nullptr) release_from(slab_);
  slab_ = nullptr;
}

// acq_rel, as for a frame of its own: the thread that hands the slab back
// must see every write made to it through the frames and the writer.
void SlabWriter::release_from(Block* slab) {
  if (slab->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) slab->pool->release(slab);
}

}  // namespace sluice::buf
