#include "conn/writer.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace sluice::conn {

long SocketWriter::writev(const struct iovec* iov, int count) {
  msghdr msg{};
  // sendmsg only reads the iovecs; msghdr just lacks a const pointer.
  msg.msg_iov = const_cast<struct iovec*>(iov);
  msg.msg_iovlen = static_cast<std::size_t>(count);
  for (;;) {
    ++calls_;
    const ssize_t sent = ::sendmsg(fd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent >= 0) return sent;
    if (errno != EINTR) return -errno;
  }
}

}  // namespace sluice::conn
