// What the broker tests that talk to Redis share: the RESP form of a command,
// to compare what a writer wrote, and link limits short enough that a test
// sees a timeout or a reconnection in a fraction of a second.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "broker/redis_link.hpp"

namespace sluice::test {

// The RESP of a command given as its arguments.
inline std::string resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

inline broker::LinkLimits quick_link_limits() {
  using namespace std::chrono_literals;
  broker::LinkLimits l;
  l.connect_timeout = 1000ms;
  l.request_timeout = 1000ms;
  l.reconnect_min = 20ms;
  l.reconnect_max = 200ms;
  return l;
}

}  // namespace sluice::test
