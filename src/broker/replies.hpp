// Owns: reading Redis's answers to the broker's commands. hiredis turns the
// bytes into a tree of redisReply; these functions check that the tree has
// the shape the command answers, within limits, before anything in it is
// used, and give typed results whose strings point into the tree (valid
// until the reply callback returns).
//
// Redis is a peer like any other: an answer of the wrong shape, an id that
// is not one of ours, or more entries than were asked for is refused as a
// whole (`malformed`, `over_limit`), never half used. An entry of the right
// shape that this node cannot use (no data field, data over its limit,
// too many fields: written by another program, or by a node with larger
// limits) is passed on marked `unusable`, so that its id still counts and
// the reader goes past it, telling the loss, rather than reading it again
// and again.
#pragma once

#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "broker/stream_id.hpp"

namespace sluice::broker {

enum class ReplyStatus : std::uint8_t {
  ok,
  redis_error,  // Redis answered with an error; its text is in `error`
  malformed,    // not the shape this command answers
  over_limit,   // more streams, entries, fields or bytes than allowed
};

[[nodiscard]] const char* to_string(ReplyStatus status);

// Whether an error says Redis as a whole cannot answer for now (loading its
// data set after a restart, running a long script, a replica cut off from
// its master, a cluster slot on the move) rather than that something is
// wrong with the key asked about: the first is waited out, the second is
// the key's alone.
[[nodiscard]] bool redis_unavailable(std::string_view error);

struct ReplyLimits {
  std::size_t max_streams = 1;     // keys a read named
  std::size_t max_entries = 1;     // per stream: the read's COUNT
  std::size_t max_fields = 16;     // field-value pairs in one entry
  std::size_t max_data = 1 << 20;  // bytes of one entry's data
};

// One stream entry as the publish script wrote it.
struct StreamEntry {
  StreamId id;
  std::string_view data;
  std::string_view event;
  std::string_view key;
  const char* unusable = nullptr;  // why this node cannot use it, or null
};

// An entry of a read, with the topic it belongs to.
struct TopicEntry {
  std::string_view topic;  // the key without the prefix
  StreamEntry entry;
};

// The id of a published event (the script's answer).
struct IdReply {
  ReplyStatus status = ReplyStatus::malformed;
  StreamId id;
  std::string_view error;
};
[[nodiscard]] IdReply parse_published(const redisReply* reply);

// XREVRANGE ... COUNT 1: the newest entry's id, if the stream has one.
struct NewestReply {
  ReplyStatus status = ReplyStatus::malformed;
  bool exists = false;
  StreamId id;
  std::string_view error;
};
[[nodiscard]] NewestReply parse_newest(const redisReply* reply);

// XRANGE: the entries, oldest first, at most limits.max_entries; each one's
// id must be greater than the one before. `out` is cleared first.
struct EntriesReply {
  ReplyStatus status = ReplyStatus::malformed;
  std::string_view error;
};
[[nodiscard]] EntriesReply parse_range(const redisReply* reply, const ReplyLimits& limits,
                                       std::vector<StreamEntry>& out);

// XREAD: nil (the wait ran out, or the read was unblocked) gives no entries;
// otherwise per stream, named PREFIX + TOPIC, its entries in id order. At
// most limits.max_streams streams with at most limits.max_entries entries
// each. Whether each entry follows the reader's cursor is the reader's to
// check. `out` is cleared first.
[[nodiscard]] EntriesReply parse_read(const redisReply* reply, std::string_view prefix, const ReplyLimits& limits,
                                      std::vector<TopicEntry>& out);

// An integer answer (CLIENT ID, CLIENT UNBLOCK).
struct IntegerReply {
  ReplyStatus status = ReplyStatus::malformed;
  std::int64_t value = 0;
  std::string_view error;
};
[[nodiscard]] IntegerReply parse_integer(const redisReply* reply);

// SCRIPT LOAD: the script's SHA-1, 40 hex digits.
struct ShaReply {
  ReplyStatus status = ReplyStatus::malformed;
  std::string_view sha;
  std::string_view error;
};
[[nodiscard]] ShaReply parse_sha(const redisReply* reply);

// PING: +PONG.
[[nodiscard]] bool is_pong(const redisReply* reply);

}  // namespace sluice::broker
