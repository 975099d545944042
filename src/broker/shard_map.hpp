// Owns: which Redis instance holds a topic's stream when broker.url lists
// several: a consistent hash of the topic name over the list.
//
// Every node must send a topic to the same instance, so the hash is spelled
// out here (64-bit FNV-1a of the name's bytes) rather than taken from
// std::hash, which may differ between builds. The bucket comes from jump
// consistent hashing: no table, no memory per topic, and when an instance
// is appended to the list only about 1/N of the topics move, all of them to
// the new one. Instances may be added at the end of
// the list only; reordering or removing one moves most topics, and the
// events of a moved topic stay behind in the instance that held it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::broker {

[[nodiscard]] std::uint64_t topic_hash(std::string_view topic);

// The index in [0, shards) of the instance holding `topic`; 0 when shards
// is 0 or 1.
[[nodiscard]] std::size_t shard_of(std::string_view topic, std::size_t shards);

}  // namespace sluice::broker
