#include "transport/tls_staging.hpp"

#include <array>

namespace sluice::transport {

namespace {

// Buffers a thread keeps for reuse: enough for the connections one loop
// writes to in a row while others still hold theirs; 512 KiB at most.
constexpr std::size_t kCachedPerThread = 32;

struct Cache {
  std::array<char*, kCachedPerThread> free{};
  std::size_t count = 0;

  ~Cache() {
    for (std::size_t i = 0; i < count; ++i) delete[] free[i];
  }
};

thread_local Cache t_cache;

}  // namespace

char* StagingBuffer::acquire() {
  if (data_ != nullptr) return data_;
  data_ = t_cache.count > 0 ? t_cache.free[--t_cache.count] : new char[kMaxRecordPlaintext];
  return data_;
}

void StagingBuffer::release() {
  if (data_ == nullptr) return;
  if (t_cache.count < kCachedPerThread) {
    t_cache.free[t_cache.count++] = data_;
  } else {
    delete[] data_;
  }
  data_ = nullptr;
}

std::size_t cached_staging_buffers() { return t_cache.count; }

}  // namespace sluice::transport
