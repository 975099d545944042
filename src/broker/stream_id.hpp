// Owns: StreamId, the id of an entry in a topic's Redis Stream, and its two
// text forms: Redis's "MS-SEQ" and the event id clients see, "EPOCH:SEQ".
//
// Every node publishes through one script (see publish_script.hpp) that
// gives a stream's entries ids EPOCH-1, EPOCH-2, ...: the first part is
// fixed for the stream's life (the millisecond the stream was created), the
// second counts its events from 1 with no holes. So the id Redis assigns is
// the event id itself, the same on every node, and:
//   - a reader that sees EPOCH-7 after EPOCH-5 knows EPOCH-6 was trimmed
//     away before it could read it, and says so rather than skip it;
//   - a stream created afresh (Redis restarted empty, the key deleted) has a
//     new EPOCH, so an id from before can never be taken for one after.
// The client's form writes EPOCH in base 36, as the single-node hub does,
// so one parser reads both and an id of one run is never one of another.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice::broker {

struct StreamId {
  std::uint64_t epoch = 0;  // the stream's first part: milliseconds since 1970 when it was created
  std::uint64_t seq = 0;    // the event's number in its stream, from 1

  auto operator<=>(const StreamId&) const = default;
  // The id of the event after this one in the same stream.
  [[nodiscard]] StreamId next() const { return {epoch, seq + 1}; }
};

// "MS-SEQ" with both parts in decimal: at most 20 + 1 + 20 characters.
inline constexpr std::size_t kMaxStreamIdText = 41;
// "EPOCH:SEQ" with EPOCH in base 36: at most 13 + 1 + 20 characters.
inline constexpr std::size_t kMaxEventIdText = 34;

// Writes "MS-SEQ" into `out` (kMaxStreamIdText bytes); returns its length.
std::size_t format_stream_id(StreamId id, char* out);
// Reads Redis's form: two decimal numbers of at most 20 digits joined by
// '-', each within 64 bits, nothing else. nullopt for anything else
// (Redis's shorthands "-", "+", "$" and a bare "MS" included).
[[nodiscard]] std::optional<StreamId> parse_stream_id(std::string_view text);

// Writes "EPOCH:SEQ" (EPOCH in lower-case base 36) into `out`
// (kMaxEventIdText bytes); returns its length.
std::size_t format_event_id(StreamId id, char* out);
// Reads a client's Last-Event-ID or `since`. nullopt when it is not of the
// form EPOCH:SEQ with EPOCH base 36 (either case) within 64 bits and SEQ
// decimal within 64 bits.
[[nodiscard]] std::optional<StreamId> parse_event_id(std::string_view text);

}  // namespace sluice::broker
