#include "auth/peer_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstring>
#include <string>

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

PeerAddress peer_address(std::string_view shown) {
  const std::size_t colon = shown.rfind(':');
  if (colon == std::string_view::npos) return {};
  std::string_view host = shown.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    sockaddr_in6 v6{};
    v6.sin6_family = AF_INET6;
    if (::inet_pton(AF_INET6, std::string(host.substr(1, host.size() - 2)).c_str(), &v6.sin6_addr) != 1) return {};
    return peer_address(reinterpret_cast<const sockaddr*>(&v6), sizeof v6);
  }
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  if (::inet_pton(AF_INET, std::string(host).c_str(), &v4.sin_addr) != 1) return {};
  return peer_address(reinterpret_cast<const sockaddr*>(&v4), sizeof v4);
}

}  // namespace sluice::auth
