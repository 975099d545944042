#include "fd_limit.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace sluice::bench {

FdLimit raise_fd_limit(std::size_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return {};
  const rlim_t target = std::min<rlim_t>(limit.rlim_max, std::max<rlim_t>(limit.rlim_cur, wanted));
  if (target > limit.rlim_cur) {
    rlimit raised = limit;
    raised.rlim_cur = target;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return {.soft = static_cast<std::size_t>(limit.rlim_cur), .hard = static_cast<std::size_t>(limit.rlim_max),
          .enough = limit.rlim_cur >= wanted};
}

std::string describe_fd_shortage(const FdLimit& limit, std::size_t wanted) {
  return "RLIMIT_NOFILE " + std::to_string(limit.soft) + " (hard limit " + std::to_string(limit.hard) +
         ", which only CAP_SYS_RESOURCE may raise) is fewer than the " + std::to_string(wanted) +
         " descriptors wanted; the server inherits the same limit";
}

}  // namespace sluice::bench
