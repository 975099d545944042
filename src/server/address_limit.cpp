#include "server/address_limit.hpp"

#include <algorithm>

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

namespace sluice::server {

bool AddressLimit::key_of(int fd, Key& out) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
  if (address.ss_family == AF_INET6) {
    std::memcpy(out.data(), &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, out.size());
    return true;
  }
  if (address.ss_family != AF_INET) return false;
  out.fill(0);
  out[10] = 0xff;
  out[11] = 0xff;
  std::memcpy(out.data() + 12, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, 4);
  return true;
}

std::uint64_t AddressLimit::tag_of(Key key) {
  constexpr std::array<unsigned char, 12> kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  const bool ipv4 = std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), key.begin());
  if (!ipv4) std::fill(key.begin() + 8, key.end(), 0);
  return KeyHash{}(key) | 1;
}

bool AddressLimit::enter(const Key& key) {
  const std::lock_guard lock(mutex_);
  std::int64_t& open = open_[key];
  if (open >= max_) {
    if (open == 0) open_.erase(key);
    return false;
  }
  ++open;
  return true;
}

void AddressLimit::set_max(std::int64_t max_per_address) {
  const std::lock_guard lock(mutex_);
  max_ = max_per_address;
}

void AddressLimit::leave(const Key& key) {
  const std::lock_guard lock(mutex_);
  const auto it = open_.find(key);
  if (it != open_.end() && --it->second == 0) open_.erase(it);
}

}  // namespace sluice::server
