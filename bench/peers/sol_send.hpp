// Owns: SolSend, one send of a speed-of-light round made by another path
// than a send() call of its own (sol_uring.hpp), and its answer.
#pragma once

#include <cstddef>

namespace sluice::peers {

// `result` is what send() would have returned, with -errno in place of -1.
struct SolSend {
  int fd = -1;
  const char* data = nullptr;
  std::size_t size = 0;
  int flags = 0;
  long result = 0;
};

}  // namespace sluice::peers
