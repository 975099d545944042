// Owns: the payload format of every benchmark event. Text, with no line
// break, so the same bytes are a valid SSE data line and a valid WebSocket
// text message. At least kPayloadHeader (32) bytes, all lowercase ASCII:
//
//   bytes  0..15  stamp: the publisher's now_ns() (CLOCK_MONOTONIC), 16 hex
//                 digits, most significant first
//   bytes 16..17  publisher index, 2 hex digits (00..ff): which publishing
//                 connection (or generator) sent it
//   bytes 18..31  that publisher's sequence number, 14 hex digits, most
//                 significant first; its first event is 1, each next one +1
//   bytes 32..    filler: the byte at offset i is 'a' + (i + index) % 26,
//                 where index is the publisher index above
//
// Example, publisher 3, event 10, 40 bytes:
//   "000000174876e80003" "0000000000000a" "jklmnopq"
// A stamp of zero means "not stamped": no latency is read from it.
//
// Publisher index ff (kGeneratorIndex) is the speed-of-light server's
// generator, which sends one prebuilt batch over and over: its numbers run
// 1..B and start again at 1, and a reader takes a 1 after the batch's
// last number (B, learnt at the first wrap) as the next in order.
//
// A reader takes the latency from the stamp without a clock read per event.
// WebSocket frames carry no event ids, so a WS reader finds losses and
// reordering from the (index, sequence) pair: a skipped number is a gap, a
// repeat or a step back an order error. The filler lets a reader check that
// a message is exactly one publisher's and whole (no two senders' frames
// interleaved).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::bench {

inline constexpr std::size_t kStampSize = 16;
inline constexpr std::size_t kIndexOffset = 16;
inline constexpr std::size_t kIndexSize = 2;
inline constexpr std::size_t kSequenceOffset = 18;
inline constexpr std::size_t kSequenceSize = 14;
inline constexpr std::size_t kPayloadHeader = 32;
inline constexpr std::size_t kMaxPublishers = 256;
inline constexpr std::uint32_t kGeneratorIndex = 0xff;

// Writes the 16 digits of `ns` at `out`.
void write_stamp(char* out, std::uint64_t ns);

// Writes bytes 16..31 of a payload starting at `payload`: `index` (< 256)
// and `seq` (< 2^56).
void write_sequence(char* payload, std::uint32_t index, std::uint64_t seq);

// Reads the stamp at the start of `payload`. False when it is shorter than
// kStampSize or holds a non-hex digit.
[[nodiscard]] bool read_stamp(std::string_view payload, std::uint64_t& ns);

// Reads bytes 16..31. False when the payload is shorter than kPayloadHeader
// or they are not lowercase hex.
[[nodiscard]] bool read_sequence(std::string_view payload, std::uint32_t& index, std::uint64_t& seq);

// Whether bytes 32.. are the filler of publisher `index`.
[[nodiscard]] bool filler_intact(std::string_view payload, std::uint32_t index);

// A payload of max(size, kPayloadHeader) bytes from publisher `index`,
// number `seq`, stamped with `ns`.
[[nodiscard]] std::string make_payload(std::size_t size, std::uint64_t ns, std::uint32_t index = 0,
                                       std::uint64_t seq = 1);

}  // namespace sluice::bench
