#include "transport/h2_memory.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <new>

namespace sluice::transport {

namespace {

// Each block carries its size (its class's, when it has one) in front;
// 16 bytes keep the rest aligned for anything nghttp2 stores.
constexpr std::size_t kHeader = 16;
constexpr std::size_t kSmallestClass = 32;

unsigned char* base_of(void* pointer) { return static_cast<unsigned char*>(pointer) - kHeader; }

std::size_t size_of(void* pointer) {
  std::size_t size = 0;
  std::memcpy(&size, base_of(pointer), sizeof size);
  return size;
}

// The size a request is rounded up to: its class's, or its own when it is
// too large to keep.
std::size_t rounded(std::size_t size) {
  if (size > H2Memory::kMaxCachedBlock) return size;
  return std::max(kSmallestClass, std::bit_ceil(size));
}

std::size_t class_of(std::size_t rounded_size) {
  return static_cast<std::size_t>(std::countr_zero(rounded_size) - std::countr_zero(kSmallestClass));
}

}  // namespace

std::string_view memory_limit_key(buf::ChargeStatus status) {
  switch (status) {
    case buf::ChargeStatus::over_connection:
      return "limits.connection_bytes";
    case buf::ChargeStatus::over_server:
      return "limits.server_bytes";
    case buf::ChargeStatus::ok:
      break;
  }
  return {};
}

H2Memory::~H2Memory() { drop_kept(); }

// Taken through operator new, so that whatever counts the process's heap
// allocations counts nghttp2's too.
void* H2Memory::allocate(std::size_t size) {
  const std::size_t block = rounded(size);
  const bool classed = block <= kMaxCachedBlock;
  if (classed && free_[class_of(block)] != nullptr) {
    FreeBlock* reused = free_[class_of(block)];
    free_[class_of(block)] = reused->next;
    kept_ -= block;
    held_ += block;
    peak_ = std::max(peak_, held_);
    return reused;
  }
  if (held_ + kept_ + block > cap_) drop_kept();
  if (block > cap_ - std::min(cap_, held_)) {
    ++refused_;
    refused_by_ = "h2.max_session_bytes";
    return nullptr;
  }
  if (buf::ChargeStatus status = charge(block + kHeader); status != buf::ChargeStatus::ok) {
    drop_kept();
    status = charge(block + kHeader);
    if (status != buf::ChargeStatus::ok) {
      ++refused_;
      refused_by_ = memory_limit_key(status);
      return nullptr;
    }
  }
  auto* base = static_cast<unsigned char*>(::operator new(block + kHeader, std::nothrow));
  if (base == nullptr) {
    uncharge(block + kHeader);  // the heap's refusal, not a limit's
    refused_by_ = {};
    return nullptr;
  }
  std::memcpy(base, &block, sizeof block);
  ++allocations_;
  held_ += block;
  peak_ = std::max(peak_, held_);
  return base + kHeader;
}

void H2Memory::release(void* pointer) {
  if (pointer == nullptr) return;
  const std::size_t block = size_of(pointer);
  held_ -= block;
  if (block <= kMaxCachedBlock) {
    auto* kept = static_cast<FreeBlock*>(pointer);
    kept->next = free_[class_of(block)];
    free_[class_of(block)] = kept;
    kept_ += block;
    return;
  }
  ::operator delete(base_of(pointer));
  uncharge(block + kHeader);
}

void H2Memory::drop_kept() {
  for (FreeBlock*& head : free_) {
    while (head != nullptr) {
      FreeBlock* next = head->next;
      uncharge(size_of(head) + kHeader);
      ::operator delete(base_of(head));
      head = next;
    }
  }
  kept_ = 0;
}

buf::ChargeStatus H2Memory::charge(std::size_t bytes) {
  if (account_ == nullptr) return buf::ChargeStatus::ok;
  const buf::ChargeStatus status = account_->charge(bytes);
  if (status == buf::ChargeStatus::ok) charged_ += bytes;
  return status;
}

void H2Memory::uncharge(std::size_t bytes) {
  if (account_ == nullptr) return;
  account_->release(bytes);
  charged_ -= bytes;
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
  // A block already large enough (its class rounded it up) is kept.
  if (size != 0 && size <= size_of(pointer)) return pointer;
  void* fresh = memory->allocate(size);
  if (fresh == nullptr) return nullptr;
  std::memcpy(fresh, pointer, std::min(size, size_of(pointer)));
  memory->release(pointer);
  return fresh;
}

}  // namespace sluice::transport
