#include "session/h2_body.hpp"

#include <algorithm>
#include <cstring>

namespace sluice::session {

BodyGrowth H2Body::append(std::string_view bytes) {
  const std::size_t block_size = pool_->block_size();
  while (!bytes.empty()) {
    if (tail_ == nullptr || tail_->used == block_size) {
      if (share_ != nullptr && !share_->take()) return BodyGrowth::share_full;
      buf::Block* block = pool_->acquire(buf::Lane::data);
      if (block == nullptr) {
        if (share_ != nullptr) share_->give_back(1);
        return BodyGrowth::pool_short;
      }
      (tail_ == nullptr ? head_ : tail_->next) = block;
      tail_ = block;
      ++blocks_;
    }
    const std::size_t take = std::min(bytes.size(), block_size - tail_->used);
    std::memcpy(tail_->data() + tail_->used, bytes.data(), take);
    tail_->used += static_cast<std::uint32_t>(take);
    size_ += take;
    bytes.remove_prefix(take);
  }
  return BodyGrowth::ok;
}

std::size_t H2Body::growth_for(std::size_t bytes) const {
  const std::size_t block_size = pool_->block_size();
  const std::size_t room = tail_ == nullptr ? 0 : block_size - tail_->used;
  if (bytes <= room) return 0;
  return (bytes - room + block_size - 1) / block_size * block_size;
}

JoinedBody H2Body::view(buf::ChargedBuffer& joined) const {
  if (head_ == nullptr) return {};
  if (head_ == tail_) return {{head_->data(), head_->used}};
  joined.clear();
  if (const buf::Growth growth = joined.reserve(size_, size_); growth != buf::Growth::ok) return {{}, growth};
  for (const buf::Block* block = head_; block != nullptr; block = block->next) {
    (void)joined.append({block->data(), block->used}, size_);  // within the room reserved
  }
  return {joined.text()};
}

void H2Body::clear() {
  if (head_ != nullptr) pool_->release(head_);
  if (share_ != nullptr) share_->give_back(blocks_);
  head_ = tail_ = nullptr;
  size_ = 0;
  blocks_ = 0;
}

}  // namespace sluice::session
