#include "buf/frame.hpp"

#include <algorithm>
#include <cstring>

#include "buf/slab_writer.hpp"

namespace sluice::buf {

void FrameRef::release_last(Block* head) {
  if (head->slab != nullptr) {
    SlabWriter::release_from(head->slab);
  } else {
    head->pool->release(head);
  }
}

std::uint32_t FrameRef::use_count() const {
  return head_ ? head_->refs.load(std::memory_order_relaxed) : 0;
}

std::size_t FrameRef::copy_to(char* out, std::size_t capacity, std::size_t offset) const {
  std::size_t copied = 0;
  for (const Block* b = head_; b != nullptr && copied < capacity; b = b->next) {
    if (offset >= b->used) {
      offset -= b->used;
      continue;
    }
    const std::size_t n = std::min<std::size_t>(b->used - offset, capacity - copied);
    std::memcpy(out + copied, b->data() + offset, n);
    copied += n;
    offset = 0;
  }
  return copied;
}

bool FrameRef::append_unshared(std::string_view bytes) {
  if (head_ == nullptr || head_->slab != nullptr || use_count() != 1) return false;
  Block* tail = head_;
  while (tail->next != nullptr) tail = tail->next;
  if (head_->pool->block_size() - tail->used < bytes.size()) return false;
  std::memcpy(tail->data() + tail->used, bytes.data(), bytes.size());
  tail->used += static_cast<std::uint32_t>(bytes.size());
  head_->frame_size += bytes.size();
  return true;
}

FrameBuilder::FrameBuilder(Pool& pool, SlabWriter& slabs, std::size_t size) : pool_(&pool), lane_(Lane::data) {
  if (!SlabWriter::packs(pool, size)) return;
  slabs_ = &slabs;
  room_ = size;
  packed_ = slabs.reserve(pool, size);
  failed_ = packed_ == nullptr;
}

FrameBuilder::~FrameBuilder() { abandon(); }

void FrameBuilder::abandon() {
  if (head_ != nullptr) pool_->release(head_);
  head_ = tail_ = nullptr;
  size_ = 0;
}

bool FrameBuilder::grow() {
  Block* block = pool_->acquire(lane_);
  if (block == nullptr) {
    failed_ = true;
    abandon();
    return false;
  }
  if (tail_ == nullptr) {
    head_ = block;
  } else {
    tail_->next = block;
  }
  tail_ = block;
  return true;
}

bool FrameBuilder::append(const char* data, std::size_t n) {
  if (failed_) return false;
  if (slabs_ != nullptr) return append_packed(data, n);
  const std::size_t block_size = pool_->block_size();
  while (n > 0) {
    if ((tail_ == nullptr || tail_->used == block_size) && !grow()) return false;
    const std::size_t take = std::min<std::size_t>(n, block_size - tail_->used);
    std::memcpy(tail_->data() + tail_->used, data, take);
    tail_->used += static_cast<std::uint32_t>(take);
    size_ += take;
    data += take;
    n -= take;
  }
  return true;
}

// The reservation is the writer's until commit(): a failed packed frame
// leaves nothing to give back.
bool FrameBuilder::append_packed(const char* data, std::size_t n) {
  if (n > room_ - size_) {
    failed_ = true;
    return false;
  }
  if (n == 0) return true;  // an empty view may have no address at all
  std::memcpy(SlabWriter::bytes_at(packed_) + size_, data, n);
  size_ += n;
  return true;
}

FrameRef FrameBuilder::finish() {
  if (slabs_ != nullptr) {
    FrameRef frame = failed_ ? FrameRef{} : slabs_->commit(packed_, size_);
    slabs_ = nullptr;
    packed_ = nullptr;
    failed_ = false;
    size_ = 0;
    return frame;
  }
  if (failed_ || (head_ == nullptr && !grow())) {
    failed_ = false;
    return {};
  }
  head_->frame_size = size_;
  head_->refs.store(1, std::memory_order_relaxed);
  FrameRef frame = FrameRef::adopt(head_);
  head_ = tail_ = nullptr;
  size_ = 0;
  return frame;
}

FrameRef make_frame(Pool& pool, Lane lane, std::string_view bytes) {
  FrameBuilder builder(pool, lane);
  builder.append(bytes);
  return builder.finish();
}

}  // namespace sluice::buf
