#include "link_bottleneck.hpp"

#include <algorithm>

namespace sluice::bench {

LinkBottleneck::LinkBottleneck(double rate, std::uint64_t delay_ns, std::size_t queue)
    : ns_per_byte_(rate > 0 ? 1e9 / rate : 0), delay_ns_(delay_ns), queue_(queue) {}

std::size_t LinkBottleneck::queued(std::uint64_t now) const {
  if (ns_per_byte_ <= 0 || free_at_ <= now) return 0;
  return static_cast<std::size_t>(static_cast<double>(free_at_ - now) / ns_per_byte_);
}

std::optional<std::uint64_t> LinkBottleneck::admit(std::uint64_t now, std::size_t bytes) {
  const std::size_t waiting = queued(now);
  // An idle link takes any packet, however small its queue.
  if (waiting > 0 && waiting + bytes > queue_) return std::nullopt;
  const std::uint64_t start = std::max(now, free_at_);
  free_at_ = start + static_cast<std::uint64_t>(static_cast<double>(bytes) * ns_per_byte_);
  return free_at_ + delay_ns_;
}

}  // namespace sluice::bench
