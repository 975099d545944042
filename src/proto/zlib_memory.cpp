#include "proto/zlib_memory.hpp"

#include <cstdlib>

namespace sluice::proto::ws {

namespace {

// Room before each block for its size, keeping the block as aligned as
// malloc's.
constexpr std::size_t kHeader = alignof(std::max_align_t);

}  // namespace

void* ZlibMemory::allocate(void* self, unsigned items, unsigned size) {
  auto& memory = *static_cast<ZlibMemory*>(self);
  const std::size_t bytes = std::size_t{items} * size + kHeader;
  if (memory.account_ != nullptr) {
    const buf::ChargeStatus status = memory.account_->charge(bytes);
    if (status != buf::ChargeStatus::ok) {
      memory.refusal_ = status;
      return nullptr;
    }
  }
  auto* block = static_cast<char*>(std::malloc(bytes));
  if (block == nullptr) {
    if (memory.account_ != nullptr) memory.account_->release(bytes);
    return nullptr;
  }
  memory.charged_ += bytes;
  *reinterpret_cast<std::size_t*>(block) = bytes;
  return block + kHeader;
}

void ZlibMemory::release(void* self, void* block) {
  if (block == nullptr) return;
  auto& memory = *static_cast<ZlibMemory*>(self);
  char* const start = static_cast<char*>(block) - kHeader;
  const std::size_t bytes = *reinterpret_cast<const std::size_t*>(start);
  if (memory.account_ != nullptr) memory.account_->release(bytes);
  memory.charged_ -= bytes;
  std::free(start);
}

}  // namespace sluice::proto::ws
