// Owns: the few socket calls of the bench that sluice::io does not offer:
// a connect that sizes the receive buffer first (the window is negotiated in
// the handshake, so a later SO_RCVBUF would not shrink it), whole writes on
// a blocking socket, and TCP_INFO's segment counter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "clock.hpp"
#include "io/socket.hpp"

namespace sluice::bench {

// How long a bench client waits for a server's answer to its handshake.
inline constexpr std::uint64_t kHandshakeTimeout = 5 * kNsPerSec;

// Connects to `where` (blocking connect; loopback answers at once), with
// SO_RCVBUF set to `receive_buffer` first when it is > 0, and from the IPv4
// address `source` when it is not empty. Each local address has its own
// ephemeral ports, so connections spread over 127.0.0.x get past one
// address's ~28,000 (the port is still chosen at connect, by the whole
// address pair: IP_BIND_ADDRESS_NO_PORT). Returns the fd, or -errno.
[[nodiscard]] int dial(const io::Endpoint& where, int receive_buffer = 0, const std::string& source = {});

// Writes all of `bytes` to a blocking socket. False on error or EOF.
[[nodiscard]] bool write_all(int fd, std::string_view bytes);

// Segments this socket has received (tcpi_segs_in), or 0 if unknown.
[[nodiscard]] std::uint64_t segments_in(int fd);

}  // namespace sluice::bench
