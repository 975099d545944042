// Owns: JSON strings as sluice writes them (RFC 8259 §7), and the rule for
// one UTF-8 sequence that the JSON reader and writer share.
//
// JSON text is UTF-8 (RFC 8259 §8.1), so bytes that are not UTF-8 cannot
// go into a JSON string as they are; a peer that checks (every browser
// does, for a WebSocket text message) would drop the whole connection. The
// writer therefore replaces each such byte by U+FFFD: the message stays
// valid and the damage stays visible. Data that must arrive byte for byte
// goes as base64 instead (see ws_json_writer.hpp).
#pragma once

#include <cstddef>
#include <string_view>

#include "buf/sink.hpp"

namespace sluice::proto::json {

// The length (1-4) of the UTF-8 sequence `p` starts with, or 0 when its
// first `available` bytes do not begin one: a stray continuation byte, an
// overlong form, a surrogate (U+D800-U+DFFF), a code point above U+10FFFF,
// or a sequence cut short. `available` is at least 1.
[[nodiscard]] std::size_t utf8_sequence_length(const unsigned char* p, std::size_t available);

// Appends `text` as a quoted JSON string. '"', '\\' and the control
// characters are escaped (\b \f \n \r \t, else \u00XX); a byte that does not
// begin a valid UTF-8 sequence is written as \ufffd; everything else is
// copied. Never allocates. Returns the sink's answer: false when it ran out
// of room (it is then failed, see buf::Sink).
[[nodiscard]] bool write_string(buf::Sink& out, std::string_view text);

}  // namespace sluice::proto::json
