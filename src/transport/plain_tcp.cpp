#include "transport/plain_tcp.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace sluice::transport {

PlainTcp::PlainTcp(int fd) : fd_(fd), writer_(fd) {}

PlainTcp::~PlainTcp() {
  if (fd_ >= 0) ::close(fd_);
}

long PlainTcp::read(char* out, std::size_t room) {
  for (;;) {
    const ssize_t n = ::recv(fd_, out, room, 0);
    if (n >= 0) return n;
    if (errno != EINTR) return -errno;
  }
}

int PlainTcp::shutdown_write() { return ::shutdown(fd_, SHUT_WR) == 0 ? 0 : -errno; }

std::string PlainTcp::peer_address() const { return peer_address_of(fd_); }

std::string peer_address_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  char host[INET6_ADDRSTRLEN] = {};
  char text[INET6_ADDRSTRLEN + 16];
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    ::inet_ntop(AF_INET, &v4.sin_addr, host, sizeof host);
    std::snprintf(text, sizeof text, "%s:%u", host, static_cast<unsigned>(ntohs(v4.sin_port)));
  } else if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof host);
    std::snprintf(text, sizeof text, "[%s]:%u", host, static_cast<unsigned>(ntohs(v6.sin6_port)));
  } else {
    return {};
  }
  return text;
}

}  // namespace sluice::transport
