#include "net.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace sluice::bench {

namespace {

int bind_source(int fd, const std::string& source) {
  sockaddr_in local{};
  local.sin_family = AF_INET;
  if (::inet_pton(AF_INET, source.c_str(), &local.sin_addr) != 1) return -EINVAL;
  const int on = 1;
  ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on, sizeof on);
  return ::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) == 0 ? 0 : -errno;
}

}  // namespace

int dial(const io::Endpoint& where, int receive_buffer, const std::string& source) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(where.port);
  if (::inet_pton(AF_INET, where.host.c_str(), &addr.sin_addr) != 1) return -EINVAL;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  if (receive_buffer > 0) io::set_receive_buffer(fd, receive_buffer);
  if (!source.empty()) {
    if (const int error = bind_source(fd, source); error != 0) {
      ::close(fd);
      return error;
    }
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int error = errno;
    ::close(fd);
    return -error;
  }
  io::set_nodelay(fd, true);
  return fd;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::uint64_t segments_in(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  return info.tcpi_segs_in;
}

}  // namespace sluice::bench
