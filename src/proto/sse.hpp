// Owns: the Server-Sent Events encoder, which writes events and comments in
// the WHATWG EventSource wire format into a buf::Sink.
//
// An event is encoded once per publish into a frame that every SSE
// subscriber shares, so the encoder validates before it writes: a rejected
// event leaves the sink untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "buf/frame.hpp"
#include "buf/sink.hpp"

namespace sluice::buf {
class FixedSink;
}

namespace sluice::proto::sse {

// The views are only read during the call that takes the Event.
struct Event {
  std::string_view id;         // empty: no "id:" line (the client keeps its last id)
  std::string_view event;      // empty: no "event:" line (the client says "message")
  std::string_view data;       // any bytes; LF, CRLF and bare CR all end a line
  std::int64_t retry_ms = -1;  // < 0: no "retry:" line
};

enum class EncodeStatus : std::uint8_t {
  ok,
  invalid_field,  // id or event holds CR, LF or NUL; nothing was written
  sink_full,      // the sink refused bytes; what it holds is unusable
};

// True when `id_or_event` can be written as an "id:" or "event:" value: it
// holds no CR or LF (either would end the field early and let the rest
// inject fields) and no NUL (a browser ignores an id containing NUL).
[[nodiscard]] bool valid_field(std::string_view id_or_event);

// Writes "retry: N", "event: name" and "id: x" lines (each only when set),
// then one "data: " line per line of `data`, then a blank line. An empty
// `data` still gets one "data: " line: a browser dispatches no event that
// has no data line. A client joins the lines with LF, so CR and CRLF in
// `data` arrive as LF.
// Returns invalid_field (writing nothing) when !valid_field(id) or
// !valid_field(event), sink_full when the sink refused bytes, else ok.
[[nodiscard]] EncodeStatus encode(const Event& event, buf::Sink& out);
// The same into a buffer of fixed size, with no virtual call per piece.
[[nodiscard]] EncodeStatus encode(const Event& event, buf::FixedSink& out);

// Writes a comment, which clients ignore (heartbeats, notices): one ':' line
// per line of `text` (": text", or ":" for an empty line), then a blank
// line; empty text gives ":\n\n". Returns sink_full or ok.
[[nodiscard]] EncodeStatus encode_comment(std::string_view text, buf::Sink& out);

// Padding that clients skip: comment lines of kPaddingLine bytes (':' and
// blanks), as many as make `bytes` or a line more, in one frame of `lane`
// blocks from `pool`. Empty when the pool has no room.
inline constexpr std::size_t kPaddingLine = 125;
[[nodiscard]] buf::FrameRef make_padding_frame(buf::Pool& pool, buf::Lane lane, std::size_t bytes);

// The event encoded into one frame of `lane` blocks from `pool`, to be
// shared by every subscriber that reads SSE. Empty when encode() refuses
// the event or the pool has no room.
[[nodiscard]] buf::FrameRef make_event_frame(buf::Pool& pool, buf::Lane lane, const Event& event);

// The exact number of bytes encode() would write for `event`; 0 when it
// would return invalid_field.
[[nodiscard]] std::size_t encoded_size(const Event& event);

}  // namespace sluice::proto::sse
