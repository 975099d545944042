#include "transport/h2_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace sluice::transport {
namespace {

void* take(H2Memory& memory, std::size_t size) {
  return memory.allocator()->malloc(size, memory.allocator()->mem_user_data);
}
void give(H2Memory& memory, void* pointer) { memory.allocator()->free(pointer, memory.allocator()->mem_user_data); }

// What a stream's open and close take and give back, again and again:
// after the first time, all of it comes from the free lists.
TEST(H2Memory, BlocksFreedAreReusedForTheNextStream) {
  H2Memory memory(1 << 20);
  const std::vector<std::size_t> sizes = {232, 40, 17, 1000, 4096, 9000};
  for (int round = 0; round < 20; ++round) {
    std::vector<void*> taken;
    for (const std::size_t size : sizes) {
      taken.push_back(take(memory, size));
      ASSERT_NE(taken.back(), nullptr);
    }
    for (void* pointer : taken) give(memory, pointer);
  }
  EXPECT_EQ(memory.allocations(), sizes.size());
  EXPECT_EQ(memory.held(), 0u);
  EXPECT_GT(memory.kept(), 0u);
}

TEST(H2Memory, BlocksOverTheLargestClassAreNotKept) {
  H2Memory memory(1 << 20);
  for (int round = 0; round < 3; ++round) give(memory, take(memory, H2Memory::kMaxCachedBlock + 1));
  EXPECT_EQ(memory.allocations(), 3u);
  EXPECT_EQ(memory.kept(), 0u);
}

// Held and kept bytes together stay under the cap: the kept ones go first,
// and past that an allocation is refused.
TEST(H2Memory, TheCapCountsKeptBlocksAndRefusesPastIt) {
  H2Memory memory(8192);
  give(memory, take(memory, 4096));
  EXPECT_EQ(memory.kept(), 4096u);
  void* whole = take(memory, 8192);  // room only once the kept block is let go
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(memory.kept(), 0u);
  EXPECT_EQ(memory.held(), 8192u);
  EXPECT_EQ(take(memory, 32), nullptr);
  EXPECT_EQ(memory.refused(), 1u);
  give(memory, whole);
  EXPECT_EQ(memory.held(), 0u);
}

TEST(H2Memory, ReallocWithinTheBlockKeepsItAndBeyondItMovesTheBytes) {
  H2Memory memory(1 << 20);
  auto* mem = memory.allocator();
  auto* p = static_cast<char*>(take(memory, 100));  // a 128-byte block
  std::fill(p, p + 100, 'x');
  EXPECT_EQ(mem->realloc(p, 120, mem->mem_user_data), p);
  auto* q = static_cast<char*>(mem->realloc(p, 500, mem->mem_user_data));
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(std::count(q, q + 100, 'x'), 100);
  give(memory, q);
}

TEST(H2Memory, CallocZeroesAReusedBlock) {
  H2Memory memory(1 << 20);
  auto* p = static_cast<char*>(take(memory, 64));
  std::fill(p, p + 64, 'x');
  give(memory, p);
  auto* z = static_cast<char*>(memory.allocator()->calloc(8, 8, memory.allocator()->mem_user_data));
  ASSERT_EQ(z, p);
  EXPECT_EQ(std::count(z, z + 64, 0), 64);
  give(memory, z);
}

// With an account, every block on the heap is charged with its header,
// kept or held; a charge the account refuses lets the kept blocks go and is
// tried again, then the allocation is refused, naming the account's key;
// what is freed or let go is given back.
TEST(H2Memory, BlocksAreChargedToTheAccountAndRefusedPastIt) {
  buf::MemoryCap cap(1 << 20);
  buf::MemoryAccount account(&cap, 9000);
  auto owned = std::make_unique<H2Memory>(1 << 20, &account);
  H2Memory& memory = *owned;
  void* small = take(memory, 1000);  // a 1024-byte block
  ASSERT_NE(small, nullptr);
  const std::size_t per_block = account.charged();
  EXPECT_GT(per_block, 1024u);
  EXPECT_EQ(memory.charged(), per_block);
  EXPECT_EQ(cap.charged(), per_block);
  give(memory, small);
  EXPECT_EQ(account.charged(), per_block) << "a kept block is still on the heap";
  // Room for an 8 KiB block only once the kept block goes.
  void* large = take(memory, 7000);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(memory.kept(), 0u);
  EXPECT_EQ(memory.refused_by(), "");
  EXPECT_EQ(take(memory, 1000), nullptr);
  EXPECT_EQ(memory.refused(), 1u);
  EXPECT_EQ(memory.refused_by(), "limits.connection_bytes");
  // The large block was refused once before the kept one went; the last
  // one twice, before and after letting go of nothing.
  EXPECT_EQ(cap.refused_by_connection(), 3u);
  give(memory, large);
  EXPECT_EQ(account.charged(), 8192u + 16u) << "kept, and still charged";
  owned.reset();
  EXPECT_EQ(account.charged(), 0u);
  EXPECT_EQ(cap.charged(), 0u);
}

TEST(H2Memory, TheServersCapIsNamedWhenItRefuses) {
  buf::MemoryCap cap(4096);
  buf::MemoryAccount account(&cap, 1 << 20);
  H2Memory memory(1 << 20, &account);
  EXPECT_EQ(take(memory, 8000), nullptr);
  EXPECT_EQ(memory.refused_by(), "limits.server_bytes");
  EXPECT_EQ(account.charged(), 0u);
}

}  // namespace
}  // namespace sluice::transport
