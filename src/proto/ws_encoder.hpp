// Owns: the WebSocket frame format (RFC 6455 §5.2) as written: opcodes,
// header sizes, masking, and the encoders that write frames into a
// buf::Sink or build them as pooled buf::FrameRefs.
//
// A published event is framed once, header and payload into one frame that
// every subscriber's queue then shares: written in place with write_frame()
// when it is small enough to pack into a slab (hub/packed_frames.hpp), or
// by make_message_frame() (or make_deflated_frame()) into pool blocks.
// Server frames are never masked; a client masks every frame with a fresh
// key from make_mask_key(), which takes it from a cryptographic generator
// (proto/random_bytes.hpp) because predictable keys let a page poison
// proxy caches (RFC 6455 §10.3).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "buf/frame.hpp"
#include "buf/pool.hpp"
#include "buf/sink.hpp"
#include "proto/ws_close.hpp"
#include "proto/ws_deflate.hpp"

namespace sluice::proto::ws {

enum class Opcode : std::uint8_t {
  continuation = 0x0,
  text = 0x1,
  binary = 0x2,
  close = 0x8,
  ping = 0x9,
  pong = 0xA,
};

[[nodiscard]] constexpr bool is_control(Opcode op) { return (static_cast<std::uint8_t>(op) & 0x8) != 0; }

inline constexpr std::size_t kMaxControlPayload = 125;
inline constexpr std::size_t kMaxCloseReason = kMaxControlPayload - 2;
inline constexpr std::size_t kMaxHeaderSize = 14;

using MaskKey = std::array<std::uint8_t, 4>;

// Bytes of the header for a payload of `payload_size`: 2, plus 2 or 8 for
// an extended length (126..65535, or more), plus 4 when masked.
[[nodiscard]] constexpr std::size_t frame_header_size(std::uint64_t payload_size, bool masked) {
  const std::size_t length = payload_size < 126 ? 0 : payload_size <= 0xFFFF ? 2 : 8;
  return 2 + length + (masked ? 4 : 0);
}

// The payload's size in an unmasked frame `frame_size` bytes long, header
// included: what frame_header_size() added, taken off again.
[[nodiscard]] constexpr std::size_t unmasked_payload_size(std::size_t frame_size) {
  if (frame_size < 2 + 126) return frame_size < 2 ? 0 : frame_size - 2;
  return frame_size <= 4 + 0xFFFF ? frame_size - 4 : frame_size - 10;
}

// XORs `data` in place with `key`, as the bytes starting `offset` bytes into
// a frame's payload (masking and unmasking are the same operation). Works a
// 64-bit word at a time.
void apply_mask(std::span<char> data, const MaskKey& key, std::size_t offset = 0);

// Fills `key` from the OpenSSL CSPRNG. Returns false when it has no entropy.
[[nodiscard]] bool make_mask_key(MaskKey& key);

// Writes one unmasked frame (server to client). Returns false, writing
// nothing, for a control frame that is fragmented, sets RSV1, or carries more
// than 125 bytes; and false when the sink refused bytes.
[[nodiscard]] bool encode_frame(Opcode op, bool fin, bool rsv1, std::span<const char> payload, buf::Sink& out);

// Writes one unmasked frame in place at `out`, which has room for
// frame_header_size(payload.size(), false) + payload.size() bytes: for a
// frame whose room is taken whole (a packed one), one copy of the payload
// and no call per piece. Same failures as encode_frame(), writing nothing.
[[nodiscard]] bool write_frame(char* out, Opcode op, bool fin, bool rsv1, std::span<const char> payload);

// Writes one frame masked with `mask` (client to server); `payload` is not
// modified. Same failures as encode_frame(). Never allocates.
[[nodiscard]] bool encode_masked_frame(Opcode op, bool fin, bool rsv1, std::span<const char> payload,
                                       const MaskKey& mask, buf::Sink& out);

// The payload of a close frame: the code in network order, then the reason.
struct ClosePayload {
  std::array<char, kMaxControlPayload> bytes{};
  std::size_t size = 0;
  [[nodiscard]] std::span<const char> view() const { return {bytes.data(), size}; }
};

// Fills `out` for `code` and `reason`. CloseCode::no_status gives an empty
// payload (and requires an empty reason). Returns false for a code that may
// not be sent (see is_valid_close_code), a reason over 123 bytes, or a reason
// that is not UTF-8 (the peer would fail the connection with 1007).
[[nodiscard]] bool make_close_payload(CloseCode code, std::string_view reason, ClosePayload& out);

// Unmasked control frames. Return false, writing nothing, for a payload
// make_close_payload() refuses or a ping/pong payload over 125 bytes; and
// false when the sink refused bytes.
[[nodiscard]] bool encode_close(CloseCode code, std::string_view reason, buf::Sink& out);
[[nodiscard]] bool encode_ping(std::span<const char> payload, buf::Sink& out);
[[nodiscard]] bool encode_pong(std::span<const char> payload, buf::Sink& out);

// Builds one complete unfragmented text or binary message frame in `pool`.
// Returns an empty FrameRef when the pool refuses a block in `lane` or `op`
// is not text or binary. Never allocates from the heap.
[[nodiscard]] buf::FrameRef make_message_frame(buf::Pool& pool, buf::Lane lane, Opcode op,
                                               std::span<const char> payload);

// Like make_message_frame(), but the payload is compressed by `deflater` and
// RSV1 is set; for connections that negotiated permessage-deflate. Also
// empty when the deflater fails. Allocates only when `deflater`'s buffer
// grows to a larger message than it has seen.
[[nodiscard]] buf::FrameRef make_deflated_frame(buf::Pool& pool, buf::Lane lane, Deflater& deflater, Opcode op,
                                                std::span<const char> payload);

// Control frames for the control lane, which may use the pool's reserve.
// Empty when the pool is exhausted or the payload is refused as above.
[[nodiscard]] buf::FrameRef make_close_frame(buf::Pool& pool, CloseCode code, std::string_view reason);
[[nodiscard]] buf::FrameRef make_ping_frame(buf::Pool& pool, std::span<const char> payload);
[[nodiscard]] buf::FrameRef make_pong_frame(buf::Pool& pool, std::span<const char> payload);
// Padding that a client neither answers nor shows its application:
// unsolicited pongs with a payload of kMaxControlPayload blanks, as many as
// make `bytes` or a pong more, in one control frame from `pool`. Empty when
// the pool has no room.
[[nodiscard]] buf::FrameRef make_pong_padding_frame(buf::Pool& pool, std::size_t bytes);

}  // namespace sluice::proto::ws
