// Frame encoding: the header is assembled on the stack and appended with the
// payload, so a frame reaches the sink in two appends (more only when a
// client's payload is masked through a small stack buffer, which keeps the
// caller's payload untouched and the heap out of it). write_frame() writes
// both in place instead, where the whole frame's room is already taken.
#include "proto/ws_encoder.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "proto/random_bytes.hpp"
#include "proto/utf8.hpp"

namespace sluice::proto::ws {

namespace {

constexpr std::uint8_t kFinBit = 0x80;
constexpr std::uint8_t kRsv1Bit = 0x40;
constexpr std::uint8_t kMaskBit = 0x80;
constexpr std::size_t kMaskChunk = 256;

bool frame_allowed(Opcode op, bool fin, bool rsv1, std::size_t payload_size) {
  if (!is_control(op)) return op == Opcode::continuation || op == Opcode::text || op == Opcode::binary;
  const bool known = op == Opcode::close || op == Opcode::ping || op == Opcode::pong;
  return known && fin && !rsv1 && payload_size <= kMaxControlPayload;
}

void put_big_endian(char* out, std::uint64_t value, std::size_t bytes) {
  for (std::size_t i = bytes; i-- > 0; value >>= 8) out[i] = static_cast<char>(value & 0xFF);
}

// Writes the header into `out` (kMaxHeaderSize bytes) and returns its size.
std::size_t write_header(char* out, Opcode op, bool fin, bool rsv1, std::uint64_t size, const MaskKey* mask) {
  out[0] = static_cast<char>((fin ? kFinBit : 0) | (rsv1 ? kRsv1Bit : 0) | static_cast<std::uint8_t>(op));
  const std::uint8_t mask_bit = mask != nullptr ? kMaskBit : 0;
  std::size_t n = 2;
  if (size < 126) {
    out[1] = static_cast<char>(mask_bit | size);
  } else if (size <= 0xFFFF) {
    out[1] = static_cast<char>(mask_bit | 126);
    put_big_endian(out + 2, size, 2);
    n = 4;
  } else {
    out[1] = static_cast<char>(mask_bit | 127);
    put_big_endian(out + 2, size, 8);
    n = 10;
  }
  if (mask != nullptr) {
    std::memcpy(out + n, mask->data(), mask->size());
    n += mask->size();
  }
  return n;
}

bool append_masked(std::span<const char> payload, const MaskKey& mask, buf::Sink& out) {
  char chunk[kMaskChunk];
  for (std::size_t done = 0; done < payload.size();) {
    const std::size_t n = std::min(kMaskChunk, payload.size() - done);
    std::memcpy(chunk, payload.data() + done, n);
    apply_mask(std::span<char>(chunk, n), mask, done);
    if (!out.append(chunk, n)) return false;
    done += n;
  }
  return true;
}

buf::FrameRef control_frame(buf::Pool& pool, Opcode op, std::span<const char> payload) {
  buf::FrameBuilder builder(pool, buf::Lane::control);
  if (!encode_frame(op, true, false, payload, builder)) return {};
  return builder.finish();
}

}  // namespace

void apply_mask(std::span<char> data, const MaskKey& key, std::size_t offset) {
  unsigned char rotated[8];
  for (std::size_t i = 0; i < sizeof rotated; ++i) rotated[i] = key[(offset + i) % 4];
  std::uint64_t word_key;
  std::memcpy(&word_key, rotated, sizeof word_key);
  char* p = data.data();
  std::size_t i = 0;
  for (; i + 8 <= data.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, sizeof word);
    word ^= word_key;
    std::memcpy(p + i, &word, sizeof word);
  }
  for (; i < data.size(); ++i) p[i] = static_cast<char>(p[i] ^ rotated[i % 4]);
}

bool make_mask_key(MaskKey& key) { return random_bytes(key); }

bool encode_frame(Opcode op, bool fin, bool rsv1, std::span<const char> payload, buf::Sink& out) {
  if (!frame_allowed(op, fin, rsv1, payload.size())) return false;
  char header[kMaxHeaderSize];
  const std::size_t n = write_header(header, op, fin, rsv1, payload.size(), nullptr);
  return out.append(header, n) && out.append(payload.data(), payload.size());
}

bool write_frame(char* out, Opcode op, bool fin, bool rsv1, std::span<const char> payload) {
  if (!frame_allowed(op, fin, rsv1, payload.size())) return false;
  const std::size_t n = write_header(out, op, fin, rsv1, payload.size(), nullptr);
  if (!payload.empty()) std::memcpy(out + n, payload.data(), payload.size());  // an empty span may have no address
  return true;
}

bool encode_masked_frame(Opcode op, bool fin, bool rsv1, std::span<const char> payload, const MaskKey& mask,
                         buf::Sink& out) {
  if (!frame_allowed(op, fin, rsv1, payload.size())) return false;
  char header[kMaxHeaderSize];
  const std::size_t n = write_header(header, op, fin, rsv1, payload.size(), &mask);
  return out.append(header, n) && append_masked(payload, mask, out);
}

bool make_close_payload(CloseCode code, std::string_view reason, ClosePayload& out) {
  if (code == CloseCode::no_status) {
    out.size = 0;
    return reason.empty();
  }
  if (!is_valid_close_code(to_wire(code)) || reason.size() > kMaxCloseReason || !is_valid_utf8(reason)) return false;
  put_big_endian(out.bytes.data(), to_wire(code), 2);
  if (!reason.empty()) std::memcpy(out.bytes.data() + 2, reason.data(), reason.size());
  out.size = 2 + reason.size();
  return true;
}

bool encode_close(CloseCode code, std::string_view reason, buf::Sink& out) {
  ClosePayload payload;
  return make_close_payload(code, reason, payload) && encode_frame(Opcode::close, true, false, payload.view(), out);
}

bool encode_ping(std::span<const char> payload, buf::Sink& out) {
  return encode_frame(Opcode::ping, true, false, payload, out);
}

bool encode_pong(std::span<const char> payload, buf::Sink& out) {
  return encode_frame(Opcode::pong, true, false, payload, out);
}

buf::FrameRef make_message_frame(buf::Pool& pool, buf::Lane lane, Opcode op, std::span<const char> payload) {
  if (op != Opcode::text && op != Opcode::binary) return {};
  buf::FrameBuilder builder(pool, lane);
  if (!encode_frame(op, true, false, payload, builder)) return {};
  return builder.finish();
}

buf::FrameRef make_deflated_frame(buf::Pool& pool, buf::Lane lane, Deflater& deflater, Opcode op,
                                  std::span<const char> payload) {
  if (op != Opcode::text && op != Opcode::binary) return {};
  const DeflateOutput compressed = deflater.compress(payload);
  if (!compressed.ok) return {};
  buf::FrameBuilder builder(pool, lane);
  if (!encode_frame(op, true, true, compressed.bytes, builder)) return {};
  return builder.finish();
}

buf::FrameRef make_close_frame(buf::Pool& pool, CloseCode code, std::string_view reason) {
  ClosePayload payload;
  if (!make_close_payload(code, reason, payload)) return {};
  return control_frame(pool, Opcode::close, payload.view());
}

buf::FrameRef make_ping_frame(buf::Pool& pool, std::span<const char> payload) {
  return control_frame(pool, Opcode::ping, payload);
}

buf::FrameRef make_pong_frame(buf::Pool& pool, std::span<const char> payload) {
  return control_frame(pool, Opcode::pong, payload);
}

buf::FrameRef make_pong_padding_frame(buf::Pool& pool, std::size_t bytes) {
  std::array<char, kMaxControlPayload> blanks;
  blanks.fill(' ');
  buf::FrameBuilder builder(pool, buf::Lane::control);
  while (builder.size() < bytes) {
    if (!encode_frame(Opcode::pong, true, false, blanks, builder)) return {};
  }
  return builder.finish();
}

}  // namespace sluice::proto::ws
