// Owns: the bench's file descriptor limit. Tens of thousands of
// connections need as many descriptors in the client and in the server
// (which inherits the limit from the bench that starts it), so a scenario
// raises RLIMIT_NOFILE's soft limit as far as the hard limit allows and
// says when even that is too few.
#pragma once

#include <cstddef>
#include <string>

namespace sluice::bench {

// Descriptors a scenario keeps beside its connections: the process's own
// files, publishers, probes.
inline constexpr std::size_t kFdsBeside = 64;

struct FdLimit {
  std::size_t soft = 0;  // after raising
  std::size_t hard = 0;
  bool enough = false;   // soft covers what was wanted
};

// Raises the soft limit to min(hard, wanted) (never lowers it).
[[nodiscard]] FdLimit raise_fd_limit(std::size_t wanted);

// "RLIMIT_NOFILE: N (hard H) is fewer than W descriptors ...": the line a
// scenario reports when the limit and not the server stopped it.
[[nodiscard]] std::string describe_fd_shortage(const FdLimit& limit, std::size_t wanted);

}  // namespace sluice::bench
