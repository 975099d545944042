// Owns: the payload format of every benchmark event: 16 lowercase hex digits
// of the publisher's now_ns(), then filler up to the chosen size. Text, with
// no line break, so the same bytes are a valid SSE data line and a valid
// WebSocket text message; a reader takes the latency from the first 16 bytes
// without a clock read per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::bench {

inline constexpr std::size_t kStampSize = 16;

// Writes the 16 digits of `ns` at `out`.
void write_stamp(char* out, std::uint64_t ns);

// Reads the stamp at the start of `payload`. False when it is shorter than
// kStampSize or holds a non-hex digit.
[[nodiscard]] bool read_stamp(std::string_view payload, std::uint64_t& ns);

// A payload of max(size, kStampSize) bytes stamped with `ns`.
[[nodiscard]] std::string make_payload(std::size_t size, std::uint64_t ns);

}  // namespace sluice::bench
