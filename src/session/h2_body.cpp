#include "session/h2_body.hpp"

#include <algorithm>
#include <cstring>

namespace sluice::session {

bool H2Body::append(std::string_view bytes) {
  const std::size_t block_size = pool_->block_size();
  while (!bytes.empty()) {
    if (tail_ == nullptr || tail_->used == block_size) {
      buf::Block* block = pool_->acquire(buf::Lane::data);
      if (block == nullptr) return false;
      (tail_ == nullptr ? head_ : tail_->next) = block;
      tail_ = block;
    }
    const std::size_t take = std::min(bytes.size(), block_size - tail_->used);
    std::memcpy(tail_->data() + tail_->used, bytes.data(), take);
    tail_->used += static_cast<std::uint32_t>(take);
    size_ += take;
    bytes.remove_prefix(take);
  }
  return true;
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
  head_ = tail_ = nullptr;
  size_ = 0;
}

}  // namespace sluice::session
