#include "transport/h2_memory.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace sluice::transport {

namespace {

// Each block carries its size in front; 16 bytes keep the rest aligned for
// anything nghttp2 stores.
constexpr std::size_t kHeader = 16;

std::size_t size_of(void* pointer) {
  std::size_t size = 0;
  std::memcpy(&size, static_cast<unsigned char*>(pointer) - kHeader, sizeof size);
  return size;
}

}  // namespace

void* H2Memory::allocate(std::size_t size) {
  if (size > cap_ - std::min(cap_, held_)) {
    ++refused_;
    return nullptr;
  }
  auto* block = static_cast<unsigned char*>(std::malloc(size + kHeader));
  if (block == nullptr) return nullptr;
  std::memcpy(block, &size, sizeof size);
  ++allocations_;
  held_ += size;
  peak_ = std::max(peak_, held_);
  return block + kHeader;
}

void H2Memory::release(void* pointer) {
  if (pointer == nullptr) return;
  held_ -= size_of(pointer);
  std::free(static_cast<unsigned char*>(pointer) - kHeader);
}

void* H2Memory::on_malloc(std::size_t size, void* self) { return static_cast<H2Memory*>(self)->allocate(size); }

void H2Memory::on_free(void* pointer, void* self) { static_cast<H2Memory*>(self)->release(pointer); }

void* H2Memory::on_calloc(std::size_t count, std::size_t size, void* self) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* pointer = static_cast<H2Memory*>(self)->allocate(count * size);
  if (pointer != nullptr) std::memset(pointer, 0, count * size);
  return pointer;
}

void* H2Memory::on_realloc(void* pointer, std::size_t size, void* self) {
  auto* memory = static_cast<H2Memory*>(self);
  if (pointer == nullptr) return memory->allocate(size);
  void* fresh = memory->allocate(size);
  if (fresh == nullptr) return nullptr;
  std::memcpy(fresh, pointer, std::min(size, size_of(pointer)));
  memory->release(pointer);
  return fresh;
}

}  // namespace sluice::transport
