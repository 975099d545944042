#include "log/output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace sluice::log {

Output::Output(int fd) : fd_(fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return;
  if (S_ISSOCK(st.st_mode)) {
    mode_ = Mode::socket;
  } else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    own_fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    mode_ = own_fd_ >= 0 ? Mode::reopened : Mode::polled;
    if (own_fd_ >= 0) fd_ = own_fd_;
  }
}

Output::~Output() {
  if (own_fd_ >= 0) ::close(own_fd_);
}

long Output::write_once(std::string_view a, std::string_view b) {
  iovec parts[2] = {{const_cast<char*>(a.data()), a.size()}, {const_cast<char*>(b.data()), b.size()}};
  switch (mode_) {
    case Mode::socket: {
      msghdr message{};
      message.msg_iov = parts;
      message.msg_iovlen = 2;
      return ::sendmsg(fd_, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    case Mode::polled: {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, 0) != 1 || (p.revents & POLLOUT) == 0) {
        errno = EAGAIN;
        return -1;
      }
      return ::writev(fd_, parts, 2);
    }
    case Mode::reopened:
    case Mode::direct:
      return ::writev(fd_, parts, 2);
  }
  return -1;
}

bool Output::write_line(std::string_view line) {
  if (line.size() > kMaxLineBytes) line = line.substr(0, kMaxLineBytes);
  // A cut line before this one gets its end first.
  const bool after_torn = torn_.exchange(false, std::memory_order_relaxed);
  const std::string_view lead = after_torn ? "\n" : "";
  long n;
  do {
    n = write_once(lead, line);
  } while (n < 0 && errno == EINTR);
  const auto wanted = static_cast<long>(lead.size() + line.size());
  if (n == wanted) return true;
  dropped_.fetch_add(1, std::memory_order_relaxed);
  // Nothing written: a lead newline still owed is owed to the next line.
  if (n > 0 || after_torn) torn_.store(true, std::memory_order_relaxed);
  return false;
}

}  // namespace sluice::log
