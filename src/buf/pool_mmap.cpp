// Pool's memory from Linux: the arena is one anonymous mapping, asked for
// transparent huge pages and optionally faulted in whole at start. The only
// file of buf/ that needs an operating system; a bare-metal build leaves it
// out and hands the pool its memory.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "buf/pool.hpp"

namespace sluice::buf {

namespace {
void unmap_arena(char* arena, std::size_t bytes) { ::munmap(arena, bytes); }
}  // namespace

Pool::Pool(const PoolConfig& config) : config_(config) {
  if (validate(config) != nullptr) return;
  const std::size_t bytes = arena_bytes(config);
  // Mapped, not touched: a block's pages fault in on its first use. Each
  // fault is costly (tens of microseconds on a VM), so the arena asks for
  // transparent huge pages: a 2 MiB fault covers ~500 blocks of 4 KiB.
  void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return;
  auto* arena = static_cast<char*>(mapped);
  (void)::madvise(arena, bytes, MADV_HUGEPAGE);  // advice: no THP just means 4 KiB faults
  if (config.prefault && ::madvise(arena, bytes, MADV_POPULATE_WRITE) != 0) {
    // Memory the machine does not have: no pool, rather than a process the
    // kernel kills page by page into the writes below.
    if (errno == ENOMEM || errno == EFAULT || errno == EHWPOISON) {
      ::munmap(arena, bytes);
      return;
    }
    // A kernel older than 5.14: the same, a write per page.
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    for (std::size_t at = 0; at < bytes; at += page) arena[at] = 0;
  }
  unmap_ = &unmap_arena;
  adopt(arena, bytes);
}

}  // namespace sluice::buf
