#include "broker/shard_map.hpp"

namespace sluice::broker {

std::uint64_t topic_hash(std::string_view topic) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (const char c : topic) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;  // FNV-1a 64 prime
  }
  return h;
}

// Jump consistent hash: walks the buckets a key would jump to as the count
// grows from 1, using the key as a linear congruential generator's state,
// and stops at the last jump below `shards`.
std::size_t shard_of(std::string_view topic, std::size_t shards) {
  if (shards <= 1) return 0;
  std::uint64_t key = topic_hash(topic);
  std::int64_t bucket = -1;
  std::int64_t next = 0;
  while (next < static_cast<std::int64_t>(shards)) {
    bucket = next;
    key = key * 2862933555777941757ull + 1;
    const double stride = static_cast<double>(std::int64_t{1} << 31) / static_cast<double>((key >> 33) + 1);
    next = static_cast<std::int64_t>(static_cast<double>(bucket + 1) * stride);
  }
  return static_cast<std::size_t>(bucket);
}

}  // namespace sluice::broker
