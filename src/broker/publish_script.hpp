// Owns: the script every node publishes through, which gives a stream's
// entries the ids EPOCH-1, EPOCH-2, ... (see stream_id.hpp).
//
// A plain XADD with an id of "*" takes the millisecond clock as the first
// part and numbers only the entries of one millisecond, so ids have holes
// and nobody could tell an entry trimmed away from one never written. The
// script instead reads the stream's newest id and appends with "EPOCH-*",
// which Redis numbers one past the newest; a stream that does not exist yet
// starts at "NOW-1", NOW being Redis's own clock in milliseconds. Redis runs
// a script whole before any other command, so two nodes publishing at once
// can neither interleave the read and the append nor both create the
// stream.
//
// KEYS[1] the topic's stream; ARGV[1] the MAXLEN bound (trimmed with "~",
// in whole nodes of the stream, so a little more may stay); ARGV[2] the
// data, ARGV[3] the event name, ARGV[4] the conflation key. The reply is
// the new entry's id.
#pragma once

#include <string_view>

namespace sluice::broker {

inline constexpr std::string_view kPublishScript =
    "local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)\n"
    "local id\n"
    "if top[1] then\n"
    "  id = string.match(top[1][1], '^%d+') .. '-*'\n"
    "else\n"
    "  local now = redis.call('TIME')\n"
    "  id = now[1] .. string.format('%03d', math.floor(now[2] / 1000)) .. '-1'\n"
    "end\n"
    "return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], id, 'd', ARGV[2], 'e', ARGV[3], 'k', ARGV[4])\n";

// Entry fields, as the script writes them.
inline constexpr std::string_view kDataField = "d";
inline constexpr std::string_view kEventField = "e";
inline constexpr std::string_view kKeyField = "k";

}  // namespace sluice::broker
