#include "auth/peer_address.hpp"

#include <netinet/in.h>

#include <algorithm>
#include <cstring>

namespace sluice::auth {

PeerAddress peer_address(const sockaddr* address, socklen_t size) {
  PeerAddress out;
  if (address == nullptr) return out;
  if (address->sa_family == AF_INET && size >= sizeof(sockaddr_in)) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    std::memcpy(out.bytes.data(), &v4->sin_addr, 4);
    out.length = 4;
  } else if (address->sa_family == AF_INET6 && size >= sizeof(sockaddr_in6)) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    const std::uint8_t* raw = v6->sin6_addr.s6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      std::copy(raw + 12, raw + 16, out.bytes.begin());
      out.length = 4;
    } else {
      std::copy(raw, raw + 8, out.bytes.begin());
      out.length = 8;
    }
  }
  return out;
}

}  // namespace sluice::auth
