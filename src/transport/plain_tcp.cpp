#include "transport/plain_tcp.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "io/arrival_stamp.hpp"

namespace sluice::transport {

static_assert(sizeof(void*) != 8 || sizeof(PlainTcp) <= 40,
              "a transport per connection: noting arrivals must not cost an idle one a larger allocation");

PlainTcp::PlainTcp(int fd) : writer_(fd) {}

PlainTcp::~PlainTcp() {
  if (fd() >= 0) ::close(fd());
}

long PlainTcp::read(char* out, std::size_t room) {
  if (arrival_ != kUnnoted) return io::recv_stamped(fd(), out, room, arrival_);
  for (;;) {
    const ssize_t n = ::recv(fd(), out, room, 0);
    if (n >= 0) return n;
    if (errno != EINTR) return -errno;
  }
}

bool PlainTcp::note_arrivals() {
  if (arrival_ == kUnnoted && io::stamp_arrivals(fd())) arrival_ = 0;
  return arrival_ != kUnnoted;
}

bool PlainTcp::unread_input(std::int64_t& arrival) {
  return arrival_ != kUnnoted && io::peek_arrival(fd(), arrival);
}

int PlainTcp::shutdown_write() { return ::shutdown(fd(), SHUT_WR) == 0 ? 0 : -errno; }

std::string PlainTcp::peer_address() const { return peer_address_of(fd()); }

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
