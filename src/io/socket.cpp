#include "io/socket.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sluice::io {

namespace {

int set_int_option(int fd, int level, int name, int value) {
  return ::setsockopt(fd, level, name, &value, sizeof value) == 0 ? 0 : -errno;
}

// An endpoint's address: IPv4 ("127.0.0.1", "localhost") or IPv6 written
// in brackets ("[::1]", "[::]"), as in a URL.
struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  [[nodiscard]] const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  [[nodiscard]] int family() const { return storage.ss_family; }
};

bool to_sockaddr(const Endpoint& where, SocketAddress& out) {
  out = {};
  const std::string_view host = where.host;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    auto& v6 = reinterpret_cast<sockaddr_in6&>(out.storage);
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(where.port);
    out.length = sizeof v6;
    return ::inet_pton(AF_INET6, std::string(host.substr(1, host.size() - 2)).c_str(), &v6.sin6_addr) == 1;
  }
  auto& v4 = reinterpret_cast<sockaddr_in&>(out.storage);
  v4.sin_family = AF_INET;
  v4.sin_port = htons(where.port);
  out.length = sizeof v4;
  const std::string text = host == "localhost" ? "127.0.0.1" : std::string(host);
  return ::inet_pton(AF_INET, text.c_str(), &v4.sin_addr) == 1;
}

int fail_and_close(int fd) {
  const int err = errno;
  ::close(fd);
  return -err;
}

}  // namespace

bool parse_endpoint(std::string_view text, Endpoint& out) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) return false;
  out.host = colon == 0 ? "127.0.0.1" : std::string(text.substr(0, colon));
  out.port = static_cast<std::uint16_t>(port);
  SocketAddress address;
  return to_sockaddr(out, address);
}

int listen_tcp(const Endpoint& where, const ListenOptions& options) {
  SocketAddress addr;
  if (!to_sockaddr(where, addr)) return -EINVAL;
  const int fd = ::socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  set_int_option(fd, SOL_SOCKET, SO_REUSEADDR, 1);
  if (options.reuse_port) set_int_option(fd, SOL_SOCKET, SO_REUSEPORT, 1);
  if (::bind(fd, addr.get(), addr.length) != 0) return fail_and_close(fd);
  if (::listen(fd, options.backlog) != 0) return fail_and_close(fd);
  return fd;
}

int check_address_free(const Endpoint& where) {
  SocketAddress addr;
  if (!to_sockaddr(where, addr)) return -EINVAL;
  const int fd = ::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  set_int_option(fd, SOL_SOCKET, SO_REUSEADDR, 1);
  const int result = ::bind(fd, addr.get(), addr.length) == 0 ? 0 : -errno;
  ::close(fd);
  return result;
}

int accept_nonblocking(int listen_fd) {
  const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

int connect_tcp(const Endpoint& where) {
  SocketAddress addr;
  if (!to_sockaddr(where, addr)) return -EINVAL;
  const int fd = ::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  if (::connect(fd, addr.get(), addr.length) != 0) return fail_and_close(fd);
  return fd;
}

std::uint16_t local_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(addr).sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in&>(addr).sin_port);
}

int set_nodelay(int fd, bool on) { return set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, on ? 1 : 0); }

int set_notsent_lowat(int fd, int bytes) {
  return bytes > 0 ? set_int_option(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, bytes) : 0;
}

int set_send_buffer(int fd, int bytes) { return set_int_option(fd, SOL_SOCKET, SO_SNDBUF, bytes); }

int set_receive_buffer(int fd, int bytes) { return set_int_option(fd, SOL_SOCKET, SO_RCVBUF, bytes); }

int set_nonblocking(int fd, bool on) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return -errno;
  const int wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
  return ::fcntl(fd, F_SETFL, wanted) == 0 ? 0 : -errno;
}

}  // namespace sluice::io
