// Owns: the commands the broker sends to Redis, written in RESP (the
// protocol's array of bulk strings) into a buffer the caller reuses, so a
// command costs no allocation once the buffer has grown to its size.
//
// A topic's stream lives at key PREFIX + TOPIC (broker.prefix, "sluice:" by
// default), so that sluice's keys are easy to tell apart in a shared Redis.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "broker/stream_id.hpp"

namespace sluice::broker {

// An event as a publisher gives it.
struct EventFields {
  std::string_view data;
  std::string_view event;  // SSE event name; empty: "message"
  std::string_view key;    // conflation key; empty: the topic
};

// Where a reader stands in one topic: XREAD answers the entries after it.
struct ReadCursor {
  std::string_view topic;
  StreamId after;
};

// Each writes one whole command into `out`, replacing what was there.
void write_ping(std::string& out);
void write_client_id(std::string& out);
// CLIENT UNBLOCK: ends another connection's blocking read at once, as if
// its time ran out.
void write_client_unblock(std::string& out, std::int64_t client_id);
void write_script_load(std::string& out, std::string_view script);
// SET PREFIX$shard MARK NX GET: marks the instance with where it stands in
// this node's broker.url ("INDEX/COUNT") unless a node did first,
// answering the mark that was there (nil when none).
void write_claim_shard(std::string& out, std::string_view prefix, std::string_view mark);
// EVALSHA of the publish script: appends `fields` to the topic's stream,
// trimmed to about `max_len` entries.
void write_publish(std::string& out, std::string_view script_sha, std::string_view prefix, std::string_view topic,
                   std::uint64_t max_len, const EventFields& fields);
// XREAD COUNT count BLOCK block_ms STREAMS key... id...: up to `count`
// entries of each topic after its cursor, waiting up to block_ms for the
// first when there are none (0 waits forever, so callers pass at least 1).
void write_read(std::string& out, std::string_view prefix, std::span<const ReadCursor> cursors, std::uint64_t count,
                std::uint64_t block_ms);
// XREVRANGE key + - COUNT 1: the stream's newest entry, or nothing.
void write_newest(std::string& out, std::string_view prefix, std::string_view topic);
// XRANGE key first last COUNT count: entries from `first` to `last`, both
// included, oldest first.
void write_range(std::string& out, std::string_view prefix, std::string_view topic, StreamId first, StreamId last,
                 std::uint64_t count);

}  // namespace sluice::broker
