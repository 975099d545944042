// Owns: ZlibMemory, the allocator one connection's zlib stream takes its
// state from (zlib's zalloc/zfree), charging every block to the
// connection's memory account first.
//
// An inflater's state is about 7 KiB when it is made and its window (up to
// 32 KiB at 15 bits) is allocated on its first use, for the life of the
// connection: memory the client chose to make the server hold by offering
// permessage-deflate. A charge the account refuses allocates nothing; zlib
// answers Z_MEM_ERROR, and refusal() says which limit refused it, so that
// the connection can be closed naming the key. Each block carries its size
// in a header, for zfree, which is not told it.
#pragma once

#include <cstddef>

#include "buf/memory_account.hpp"

namespace sluice::proto::ws {

class ZlibMemory {
 public:
  // `account` null: blocks are taken from the heap, uncharged.
  explicit ZlibMemory(buf::MemoryAccount* account) : account_(account) {}
  ZlibMemory(const ZlibMemory&) = delete;
  ZlibMemory& operator=(const ZlibMemory&) = delete;

  // zlib's alloc_func and free_func; `self` is this object (the stream's
  // opaque). The types are zlib's (uInt, voidpf) spelled without its header.
  static void* allocate(void* self, unsigned items, unsigned size);
  static void release(void* self, void* block);

  // Bytes charged now (the blocks and their headers).
  [[nodiscard]] std::size_t charged() const { return charged_; }
  // The limit that refused the last allocation refused by the account; ok
  // when none did (a heap failure is not the account's).
  [[nodiscard]] buf::ChargeStatus refusal() const { return refusal_; }

 private:
  buf::MemoryAccount* const account_;
  std::size_t charged_ = 0;
  buf::ChargeStatus refusal_ = buf::ChargeStatus::ok;
};

}  // namespace sluice::proto::ws
