// Owns: AddressLimit, the count of open connections from each client
// address, shared by every loop, so that one host cannot take all of
// max_connections (limits.per_ip_connections). An IPv4 address counts as
// its IPv4-mapped IPv6 form, so a client is one client whichever family it
// arrives by. The table holds only addresses with a connection open, so it
// is bounded by max_connections.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace sluice::server {

class AddressLimit {
 public:
  using Key = std::array<unsigned char, 16>;

  explicit AddressLimit(std::int64_t max_per_address) : max_(max_per_address) {}

  // The peer address of connected socket `fd`; false when it has none (a
  // Unix socket), which no limit applies to.
  [[nodiscard]] static bool key_of(int fd, Key& out);
  // A number that stands for the client behind `key` in the topic book's
  // count of the topics each address is the first to follow (never 0): an
  // IPv6 address by its /64, since one host is commonly given a whole /64.
  [[nodiscard]] static std::uint64_t tag_of(Key key);

  // Any thread. Counts a connection from `key` in; false, counting
  // nothing, when that address has max_per_address open already.
  [[nodiscard]] bool enter(const Key& key);
  // Any thread. A connection counted by enter() closed.
  void leave(const Key& key);
  // Any thread (a reload). Binds the next enter(): an address already over
  // a lowered maximum keeps its connections and is refused new ones until
  // enough of them have closed.
  void set_max(std::int64_t max_per_address);

 private:
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(k.data()), k.size()));
    }
  };

  std::mutex mutex_;
  std::int64_t max_;  // guarded by mutex_
  std::unordered_map<Key, std::int64_t, KeyHash> open_;
};

}  // namespace sluice::server
