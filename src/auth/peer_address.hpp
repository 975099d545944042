// Owns: PeerAddress, the part of a client's address that rate limits count
// by: the whole IPv4 address, or the /64 prefix of an IPv6 one (a single
// IPv6 host is usually handed a whole /64, so counting per address would
// let it pick a fresh address for every connection).
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace sluice::auth {

struct PeerAddress {
  std::array<std::uint8_t, 8> bytes{};
  std::uint8_t length = 0;  // 4 (IPv4, IPv4-mapped IPv6) or 8 (IPv6 /64); 0 unknown

  [[nodiscard]] std::string_view view() const { return {reinterpret_cast<const char*>(bytes.data()), length}; }
};

// From an accepted socket's peer address. length 0 for other families.
[[nodiscard]] PeerAddress peer_address(const sockaddr* address, socklen_t size);

// From an address as the server shows it: "IP:PORT" or "[IPv6]:PORT".
// length 0 when it is neither.
[[nodiscard]] PeerAddress peer_address(std::string_view shown);

}  // namespace sluice::auth
