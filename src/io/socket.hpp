// Owns: the few socket calls sluice makes, each returning an error code
// instead of throwing, and the socket options the design depends on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::io {

struct Endpoint {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
};

// Parses "host:port" or ":port" (host defaults to 127.0.0.1); an IPv6
// host is written in brackets ("[::1]:8080"). Returns false for a missing
// or out-of-range port, or a host that is not an IPv4 address, a bracketed
// IPv6 one or localhost (names are not resolved: a typo is caught here, not
// taken for a host somewhere).
[[nodiscard]] bool parse_endpoint(std::string_view text, Endpoint& out);

struct ListenOptions {
  int backlog = 1024;
  bool reuse_port = false;  // SO_REUSEPORT: one listener per loop
};

// Opens a non-blocking listening TCP socket. Returns the fd, or -errno.
[[nodiscard]] int listen_tcp(const Endpoint& where, const ListenOptions& options);
// Binds a plain socket (SO_REUSEADDR, not SO_REUSEPORT) to `where` and lets
// it go: 0 when the address is free, -EADDRINUSE when any socket holds it,
// a group of SO_REUSEPORT listeners of another process included.
[[nodiscard]] int check_address_free(const Endpoint& where);

// Accepts one connection as a non-blocking, close-on-exec socket. Returns the
// fd, or -errno (-EAGAIN when none is waiting).
[[nodiscard]] int accept_nonblocking(int listen_fd);

// Connects a blocking socket (clients and tests). Returns the fd, or -errno.
[[nodiscard]] int connect_tcp(const Endpoint& where);

// The port a bound socket got (for listeners on port 0).
[[nodiscard]] std::uint16_t local_port(int fd);

// Disables Nagle: sluice batches frames itself, once per loop tick.
int set_nodelay(int fd, bool on);

// Keeps at most `bytes` unsent bytes in the kernel, so that waiting events
// stay in sluice's queue where a policy can still drop or conflate them: a
// deep kernel buffer lets a fast sender bury a slow reader, and bytes in it
// can never be skipped, so the reader's lag grows from milliseconds to
// seconds. 0 leaves the kernel default.
int set_notsent_lowat(int fd, int bytes);

int set_send_buffer(int fd, int bytes);
int set_receive_buffer(int fd, int bytes);
int set_nonblocking(int fd, bool on);

}  // namespace sluice::io
