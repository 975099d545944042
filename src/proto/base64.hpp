// Owns: base64 (RFC 4648 §4, the standard alphabet, padded; tokens' base64url
// is in base64url.hpp). The /ws protocol carries event data that is not UTF-8
// as base64, because a JSON string can only hold UTF-8 text; the server
// encodes it, the client library decodes it. The WebSocket handshake's key
// and accept values are base64 of a few bytes too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "buf/sink.hpp"

namespace sluice::proto {

// Characters the encoding of `bytes` bytes takes.
[[nodiscard]] constexpr std::size_t base64_encoded_size(std::size_t bytes) { return (bytes + 2) / 3 * 4; }

// Appends the base64 text of `bytes`, padded with '='. Never allocates.
// Returns the sink's answer.
[[nodiscard]] bool base64_encode(buf::Sink& out, std::string_view bytes);

// Writes the base64 of `in` into `out`, which has room
// for base64_encoded_size(in.size()) characters and a NUL, and returns the
// number of characters before the NUL. For the handshake, where the value
// goes into a fixed buffer, not a sink.
std::size_t base64_encode(std::span<const unsigned char> in, char* out);

enum class Base64Status : std::uint8_t { ok, malformed, no_room };

// The result of decoding: `size` bytes written when ok.
struct Base64Decoded {
  Base64Status status = Base64Status::malformed;
  std::size_t size = 0;
};

// Decodes `text` into `out`, which has room for `capacity` bytes (at most
// text.size() / 4 * 3 are written). `out` may be text.data(): every byte
// is written behind the characters it came from. Malformed: a length that
// is not a multiple of 4, a character outside the alphabet, padding
// anywhere but at the end, padding bits that are not zero (so each byte
// string has exactly one encoding). No room: the bytes would not fit
// `capacity` (nothing is written). Never allocates.
[[nodiscard]] Base64Decoded base64_decode(std::string_view text, char* out, std::size_t capacity);

}  // namespace sluice::proto
