#include "free_port.hpp"

#include <unistd.h>

#include "io/socket.hpp"

namespace sluice::bench {

std::uint16_t free_port() {
  const int fd = io::listen_tcp({"127.0.0.1", 0}, {});
  if (fd < 0) return 0;
  const std::uint16_t port = io::local_port(fd);
  ::close(fd);
  return port;
}

}  // namespace sluice::bench
