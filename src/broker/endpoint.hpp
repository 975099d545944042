// Owns: Endpoint, one Redis instance named by a broker.url entry, and the
// parser that says in one line what is wrong with an entry it refuses.
//
// Only redis://ADDRESS[:PORT] is taken. ADDRESS is an IPv4 address, an
// IPv6 address in brackets, or "localhost": a loop connects (and
// reconnects) on its own thread, and resolving a name there would block
// every connection of that loop for as long as the resolver takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::broker {

inline constexpr std::uint16_t kDefaultRedisPort = 6379;
// broker.url lists at most this many instances.
inline constexpr std::size_t kMaxShards = 64;

struct Endpoint {
  std::string host;  // an address as hiredis takes it: "127.0.0.1", "::1"
  std::uint16_t port = kDefaultRedisPort;

  bool operator==(const Endpoint&) const = default;
};

// Parses one entry. On failure returns false and sets `error` to one line
// naming the entry and the problem: a scheme other than redis:// (rediss://
// because TLS to Redis is not supported yet), a user or password, a
// database number or other path, a host that is not an address, a port
// outside 1-65535.
[[nodiscard]] bool parse_endpoint(std::string_view url, Endpoint& out, std::string& error);

// Parses the whole list, in order (the order decides which instance holds
// which topic, so every node must list the same instances in the same
// order). Refuses an empty list, more than kMaxShards entries, and the same
// instance twice.
[[nodiscard]] bool parse_endpoints(const std::vector<std::string>& urls, std::vector<Endpoint>& out,
                                   std::string& error);

}  // namespace sluice::broker
