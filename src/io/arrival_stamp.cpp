#include "io/arrival_stamp.hpp"

#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sluice::io {

bool stamp_arrivals(int fd) {
  const int on = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
}

namespace {

// TCP hands back the stamp of the last segment the read took.
long receive_stamped(int fd, char* out, std::size_t room, int flags, std::int64_t& arrival) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  iovec into{out, room};
  for (;;) {
    msghdr message{};
    message.msg_iov = &into;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &message, flags);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) return 0;
    // Bytes without a stamp of their own must not keep an earlier read's,
    // which would make them look older than they are.
    arrival = 0;
    if ((message.msg_flags & MSG_CTRUNC) != 0) return n;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
      if (c->cmsg_len < CMSG_LEN(sizeof(timespec))) continue;
      timespec stamp;
      std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
      arrival = static_cast<std::int64_t>(stamp.tv_sec) * 1'000'000'000 + stamp.tv_nsec;
    }
    return n;
  }
}

}  // namespace

long recv_stamped(int fd, char* out, std::size_t room, std::int64_t& arrival) {
  return receive_stamped(fd, out, room, MSG_DONTWAIT, arrival);
}

// One byte peeked is in the oldest segment waiting (or in the one the
// kernel merged it into): its stamp is that segment's.
bool peek_arrival(int fd, std::int64_t& arrival) {
  char first = 0;
  return receive_stamped(fd, &first, 1, MSG_DONTWAIT | MSG_PEEK, arrival) > 0;
}

Loop::Clock::time_point arrived_at(std::int64_t arrival, Loop::Clock::time_point now) {
  if (arrival == 0) return now;
  timespec real{};
  ::clock_gettime(CLOCK_REALTIME, &real);
  const Loop::Clock::time_point steady = Loop::Clock::now();
  const std::int64_t age = static_cast<std::int64_t>(real.tv_sec) * 1'000'000'000 + real.tv_nsec - arrival;
  return std::min(now, steady - std::chrono::nanoseconds(std::max<std::int64_t>(age, 0)));
}

}  // namespace sluice::io
