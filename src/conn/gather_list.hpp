// Owns: the gather list a Writer is handed (an array of `struct iovec`) and
// kMaxGather, how many entries one write may carry.
//
// A POSIX system has both: writev's struct and its IOV_MAX. A bare-metal C
// library has neither, and its writer is a callback TCP stack (lwIP's
// tcp_write, one call per entry), so this header gives it the same struct
// and a short list: a flush keeps its list on the stack, where IOV_MAX
// entries would take 8 KiB of a small task's stack.
#pragma once

#include <cstddef>

#if __has_include(<sys/uio.h>)
#include <sys/uio.h>

#include <climits>

namespace sluice::conn {
inline constexpr int kMaxGather = IOV_MAX;
}  // namespace sluice::conn
#else
struct iovec {
  void* iov_base;
  std::size_t iov_len;
};

namespace sluice::conn {
inline constexpr int kMaxGather = 16;
}  // namespace sluice::conn
#endif
