// Owns: what the memory tests read of this process (the server under test
// runs in it): the resident set and the live heap. Under a sanitizer the
// quarantine keeps freed memory resident on purpose, so there the live heap
// is the sanitizer runtime's own count.
#pragma once

#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#define SLUICE_PROCESS_MEMORY_SANITIZED 1
#endif

namespace sluice::test {

#ifdef SLUICE_PROCESS_MEMORY_SANITIZED
inline constexpr bool kResidentSetMeaningful = false;
#else
inline constexpr bool kResidentSetMeaningful = true;
#endif

inline std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

inline std::size_t live_heap_bytes() {
#ifdef SLUICE_PROCESS_MEMORY_SANITIZED
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = ::mallinfo2();  // glibc sums every arena
  return info.uordblks + info.hblkhd;
#endif
}

inline std::size_t grown(std::size_t before, std::size_t after) { return after > before ? after - before : 0; }

}  // namespace sluice::test
