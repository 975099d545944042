// Owns: H2Memory, the allocator one HTTP/2 session's nghttp2 state comes
// from: it counts the bytes nghttp2 holds for that connection (streams,
// header tables, frames waiting to go out) and refuses to go past a cap,
// so that no peer can make one connection's library state grow without
// bound. nghttp2 answers a refused allocation with NGHTTP2_ERR_NOMEM,
// which ends that connection and no other.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>

namespace sluice::transport {

class H2Memory {
 public:
  explicit H2Memory(std::size_t cap) : cap_(cap) {}
  H2Memory(const H2Memory&) = delete;
  H2Memory& operator=(const H2Memory&) = delete;

  // The allocator to hand nghttp2; valid while this object lives.
  [[nodiscard]] nghttp2_mem* allocator() { return &mem_; }
  [[nodiscard]] std::size_t held() const { return held_; }
  [[nodiscard]] std::size_t peak() const { return peak_; }
  [[nodiscard]] std::size_t refused() const { return refused_; }
  // Allocations made so far (a steady state makes none).
  [[nodiscard]] std::uint64_t allocations() const { return allocations_; }

 private:
  static void* on_malloc(std::size_t size, void* self);
  static void on_free(void* pointer, void* self);
  static void* on_calloc(std::size_t count, std::size_t size, void* self);
  static void* on_realloc(void* pointer, std::size_t size, void* self);
  void* allocate(std::size_t size);
  void release(void* pointer);

  std::size_t cap_;
  std::size_t held_ = 0;
  std::size_t peak_ = 0;
  std::size_t refused_ = 0;
  std::uint64_t allocations_ = 0;
  nghttp2_mem mem_{this, on_malloc, on_free, on_calloc, on_realloc};
};

}  // namespace sluice::transport
