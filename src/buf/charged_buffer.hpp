// Owns: ChargedBuffer, a growable byte buffer for what a client sends (a
// WebSocket message being joined, a chunked body being joined) whose
// growth past kRestingCapacity is charged to a MemoryAccount first (past
// nothing, where one account holds many such buffers: see the constructor).
//
// It keeps its capacity between uses up to kRestingCapacity, so the
// common small message or body allocates nothing after the first; a larger
// one costs one allocation per doubling and is given back by trim() once
// it is done. Growth uses nothrow allocation: running out of memory is an
// answer, not an abort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "buf/memory_account.hpp"

namespace sluice::buf {

// What a buffer may keep at rest without being charged or trimmed.
inline constexpr std::size_t kRestingCapacity = 16 << 10;

enum class Growth : std::uint8_t { ok, no_memory, over_connection, over_server };

// The growth an account's refusal stands for (ok for ok).
[[nodiscard]] Growth growth_of(ChargeStatus status);

class ChargedBuffer {
 public:
  // `account` may be null: nothing is charged. `uncharged` is what the
  // buffer holds before it is charged: kRestingCapacity for a connection's
  // own buffers (its fixed cost, one of each per connection), 0 where one
  // account holds a buffer per stream (the WebSocket streams of an HTTP/2
  // connection), so that their resting capacity is charged too.
  explicit ChargedBuffer(MemoryAccount* account, std::size_t uncharged = kRestingCapacity)
      : account_(account), uncharged_(uncharged) {}
  ~ChargedBuffer() { give_back(); }
  ChargedBuffer(const ChargedBuffer&) = delete;
  ChargedBuffer& operator=(const ChargedBuffer&) = delete;
  // Moving hands the buffer and its charge over; the moved-from one is
  // empty and charges nothing.
  ChargedBuffer(ChargedBuffer&& other) noexcept;
  ChargedBuffer& operator=(ChargedBuffer&& other) noexcept;

  // Makes room for `total` bytes, growing by doubling but never past
  // max(limit, total). Nothing changes unless it returns ok.
  [[nodiscard]] Growth reserve(std::size_t total, std::size_t limit);
  // reserve() then copies `bytes` in after what is held.
  [[nodiscard]] Growth append(std::string_view bytes, std::size_t limit);
  // Frees a buffer larger than `keep` (kRestingCapacity: what a buffer may
  // keep at rest), and what it holds.
  void trim(std::size_t keep = kRestingCapacity);

  [[nodiscard]] std::span<char> spare() { return {data_.get() + size_, capacity_ - size_}; }
  void commit(std::size_t n) { size_ += n; }
  void clear() { size_ = 0; }
  [[nodiscard]] char* data() { return data_.get(); }
  [[nodiscard]] std::span<const char> view() const { return {data_.get(), size_}; }
  [[nodiscard]] std::string_view text() const { return {data_.get(), size_}; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

 private:
  void give_back();

  MemoryAccount* account_;
  std::size_t uncharged_;
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace sluice::buf
