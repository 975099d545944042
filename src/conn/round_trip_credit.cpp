#include "conn/round_trip_credit.hpp"

#include <algorithm>
#include <limits>

namespace sluice::conn {

std::size_t round_trip_credit(const PathFacts& path) {
  if (path.rate_app_limited || path.delivery_rate == 0 || path.min_rtt_us == 0) return 0;
  // Before its first round-trip sample the kernel reports the largest
  // value there is: no round trip known, no credit.
  if (path.min_rtt_us == std::numeric_limits<std::uint32_t>::max()) return 0;
  // Milliseconds of rate times milliseconds of round trip: no overflow for
  // any rate a link has, and a byte's precision is more than the gate needs.
  const std::uint64_t per_round_trip = path.delivery_rate / 1000 * path.min_rtt_us / 1000;
  return static_cast<std::size_t>(std::min<std::uint64_t>(path.unacknowledged, per_round_trip));
}

}  // namespace sluice::conn
