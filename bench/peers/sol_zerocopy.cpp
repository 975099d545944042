#include "sol_zerocopy.hpp"

#include <sys/socket.h>
#include <time.h>  // linux/errqueue.h uses struct timespec without including it

#include <linux/errqueue.h>

#include <cerrno>

namespace sluice::peers {

bool enable_zerocopy(int fd) {
  const int on = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &on, sizeof on) == 0;
}

bool reap_zerocopy(int fd, SolZerocopyTally& tally) {
  for (;;) {
    char control[128];
    msghdr msg{};
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) return false;
      int error = 0;
      socklen_t size = sizeof error;
      return ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0;
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      const auto* ee = reinterpret_cast<const sock_extended_err*>(CMSG_DATA(c));
      if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno != 0) continue;
      // ee_info..ee_data: the first and last send this notification covers.
      const std::uint64_t count = std::uint64_t{static_cast<std::uint32_t>(ee->ee_data - ee->ee_info)} + 1;
      ++tally.notifications;
      tally.completed += count;
      if ((ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED) != 0) tally.copied += count;
    }
  }
}

}  // namespace sluice::peers
