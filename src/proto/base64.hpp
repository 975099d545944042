// Owns: base64_encode(), padded base64 (RFC 4648 §4) of a few bytes, for the
// WebSocket handshake: Sec-WebSocket-Key (16 random bytes) and
// Sec-WebSocket-Accept (a SHA-1 digest).
#pragma once

#include <cstddef>
#include <span>

namespace sluice::proto {

// Characters the padded base64 of `n` bytes takes.
[[nodiscard]] constexpr std::size_t base64_size(std::size_t n) { return (n + 2) / 3 * 4; }

// Writes the base64 of `in` into `out` (base64_size(in.size()) characters,
// then a NUL) and returns the number of characters before the NUL.
std::size_t base64_encode(std::span<const unsigned char> in, char* out);

}  // namespace sluice::proto
