// Owns: H2Memory, the allocator one HTTP/2 session's nghttp2 state comes
// from: it counts the bytes nghttp2 holds for that connection (streams,
// header tables, header fields, frames waiting to go out) and refuses to go
// past a cap, so that no peer can make one connection's library state grow
// without bound. nghttp2 answers a refused allocation with
// NGHTTP2_ERR_NOMEM, which ends that connection and no other.
//
// nghttp2 allocates for every stream it opens (the stream, each header
// field's buffer, the outgoing HEADERS item) and frees it all when the
// stream closes. Freed blocks up to kMaxCachedBlock bytes are kept on a free
// list per size class and handed back for the next stream, so a connection
// that opens stream after stream (an HTTP/2 publisher) settles into taking
// nothing from the heap. Kept blocks count against the same cap as held
// ones and are let go first when a new allocation would pass it.
//
// With an account, every block taken from the heap (its header included,
// kept or held) is charged to it first: the connection's memory account
// (limits.connection_bytes) and through it the server's
// (limits.server_bytes), so that nghttp2's state counts with the rest of
// what the client makes the server hold, and many HTTP/2 connections
// together cannot pass the server's cap. A refused charge lets the kept
// blocks go and tries once more before the allocation is refused.
#pragma once

#include <nghttp2/nghttp2.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "buf/memory_account.hpp"

namespace sluice::transport {

// The config key of the limit a refused charge met.
[[nodiscard]] std::string_view memory_limit_key(buf::ChargeStatus status);

class H2Memory {
 public:
  // Blocks up to this size are kept for reuse; larger ones go back at once.
  static constexpr std::size_t kMaxCachedBlock = 16384;

  // `account` may be null (nothing charged); it must outlive this object.
  explicit H2Memory(std::size_t cap, buf::MemoryAccount* account = nullptr) : cap_(cap), account_(account) {}
  ~H2Memory();
  H2Memory(const H2Memory&) = delete;
  H2Memory& operator=(const H2Memory&) = delete;

  // The allocator to hand nghttp2; valid while this object lives.
  [[nodiscard]] nghttp2_mem* allocator() { return &mem_; }
  // Bytes handed to nghttp2 (rounded up to their size class).
  [[nodiscard]] std::size_t held() const { return held_; }
  [[nodiscard]] std::size_t peak() const { return peak_; }
  // Bytes kept on the free lists.
  [[nodiscard]] std::size_t kept() const { return kept_; }
  [[nodiscard]] std::size_t refused() const { return refused_; }
  // Bytes charged to the account now: every block on the heap, kept or
  // held, with its header.
  [[nodiscard]] std::size_t charged() const { return charged_; }
  // The key of the limit that refused the last allocation refused (empty:
  // none): h2.max_session_bytes, or the account's.
  [[nodiscard]] std::string_view refused_by() const { return refused_by_; }
  // Blocks taken from the heap so far (a steady state takes none).
  [[nodiscard]] std::uint64_t allocations() const { return allocations_; }

 private:
  // Size classes 32, 64, ... kMaxCachedBlock, then "not kept".
  static constexpr std::size_t kClasses = 10;
  struct FreeBlock {
    FreeBlock* next;
  };

  static void* on_malloc(std::size_t size, void* self);
  static void on_free(void* pointer, void* self);
  static void* on_calloc(std::size_t count, std::size_t size, void* self);
  static void* on_realloc(void* pointer, std::size_t size, void* self);
  void* allocate(std::size_t size);
  void release(void* pointer);
  void drop_kept();
  [[nodiscard]] buf::ChargeStatus charge(std::size_t bytes);
  void uncharge(std::size_t bytes);

  std::size_t cap_;
  buf::MemoryAccount* account_;
  std::size_t charged_ = 0;
  std::string_view refused_by_;
  std::size_t held_ = 0;
  std::size_t kept_ = 0;
  std::size_t peak_ = 0;
  std::size_t refused_ = 0;
  std::uint64_t allocations_ = 0;
  std::array<FreeBlock*, kClasses> free_{};
  nghttp2_mem mem_{this, on_malloc, on_free, on_calloc, on_realloc};
};

}  // namespace sluice::transport
