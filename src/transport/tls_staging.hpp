// Owns: StagingBuffer, the one buffer of a TLS record's worth of plaintext
// (16 KiB) that a connection packs queued frames into before encrypting
// them, and the per-thread cache it comes from.
//
// A connection holds its buffer only while a write is under way: from the
// first copy until OpenSSL has taken the record whole. An idle connection
// holds none, so ten thousand quiet TLS subscribers cost no staging memory,
// and a busy loop reuses the same few buffers (taken from and returned to
// its thread's cache) without touching the heap.
#pragma once

#include <cstddef>

namespace sluice::transport {

// The most plaintext one TLS record carries (RFC 8446 5.1, RFC 5246 6.2.1).
inline constexpr std::size_t kMaxRecordPlaintext = 16384;

class StagingBuffer {
 public:
  StagingBuffer() = default;
  ~StagingBuffer() { release(); }
  StagingBuffer(const StagingBuffer&) = delete;
  StagingBuffer& operator=(const StagingBuffer&) = delete;

  // Takes a buffer of kMaxRecordPlaintext bytes unless one is held.
  char* acquire();
  // Returns the buffer to the calling thread's cache (or frees it when the
  // cache is full).
  void release();
  [[nodiscard]] char* data() const { return data_; }
  [[nodiscard]] bool held() const { return data_ != nullptr; }

 private:
  char* data_ = nullptr;
};

// Buffers in the calling thread's cache (for tests).
[[nodiscard]] std::size_t cached_staging_buffers();

}  // namespace sluice::transport
