#include "proto/base64.hpp"

#include <array>
#include <cstdint>

namespace sluice::proto {

namespace {

constexpr char kStandardAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::uint8_t kNotBase64 = 0xFF;

constexpr std::array<std::uint8_t, 256> make_standard_values() {
  std::array<std::uint8_t, 256> values{};
  values.fill(kNotBase64);
  for (std::uint8_t i = 0; i < 64; ++i) values[static_cast<unsigned char>(kStandardAlphabet[i])] = i;
  return values;
}

constexpr std::array<std::uint8_t, 256> kStandardValues = make_standard_values();

// Bytes are encoded a chunk at a time into a stack buffer: few appends,
// no allocation, whatever the data's size.
constexpr std::size_t kChunkBytes = 192;  // whole 3-byte groups, so padding only ever ends the text

std::size_t encode_chunk(const unsigned char* in, std::size_t n, char* out) {
  std::size_t w = 0;
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const std::uint32_t bits = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
    out[w++] = kStandardAlphabet[bits >> 18];
    out[w++] = kStandardAlphabet[(bits >> 12) & 0x3F];
    out[w++] = kStandardAlphabet[(bits >> 6) & 0x3F];
    out[w++] = kStandardAlphabet[bits & 0x3F];
  }
  if (i < n) {
    const bool two = n - i == 2;
    const std::uint32_t bits = (std::uint32_t{in[i]} << 16) | (two ? std::uint32_t{in[i + 1]} << 8 : 0);
    out[w++] = kStandardAlphabet[bits >> 18];
    out[w++] = kStandardAlphabet[(bits >> 12) & 0x3F];
    out[w++] = two ? kStandardAlphabet[(bits >> 6) & 0x3F] : '=';
    out[w++] = '=';
  }
  return w;
}

}  // namespace

bool base64_encode(buf::Sink& out, std::string_view bytes) {
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  char encoded[base64_encoded_size(kChunkBytes)];
  bool ok = true;
  for (std::size_t at = 0; at < bytes.size(); at += kChunkBytes) {
    const std::size_t n = bytes.size() - at < kChunkBytes ? bytes.size() - at : kChunkBytes;
    ok = out.append(encoded, encode_chunk(in + at, n, encoded)) && ok;
  }
  return ok;
}

std::size_t base64_encode(std::span<const unsigned char> in, char* out) {
  const std::size_t written = encode_chunk(in.data(), in.size(), out);
  out[written] = '\0';
  return written;
}

Base64Decoded base64_decode(std::string_view text, char* out, std::size_t capacity) {
  if (text.size() % 4 != 0) return {};
  const std::size_t padding = text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0;
  const std::size_t size = text.size() / 4 * 3 - padding;
  if (size > capacity) return {Base64Status::no_room, 0};
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t w = 0;
  for (std::size_t at = 0; at < text.size(); at += 4) {
    const bool last = at + 4 == text.size();
    const std::size_t pad = last ? padding : 0;
    std::uint32_t bits = 0;
    for (std::size_t k = 0; k < 4 - pad; ++k) {
      const std::uint8_t v = kStandardValues[in[at + k]];
      if (v == kNotBase64) return {};
      bits = (bits << 6) | v;
    }
    bits <<= 6 * pad;
    // Read whole before written: `out` may be the text itself.
    out[w++] = static_cast<char>(bits >> 16);
    if (pad < 2) out[w++] = static_cast<char>((bits >> 8) & 0xFF);
    if (pad < 1) out[w++] = static_cast<char>(bits & 0xFF);
    if ((pad == 1 && (bits & 0xFF) != 0) || (pad == 2 && (bits & 0xFFFF) != 0)) return {};
  }
  return {Base64Status::ok, size};
}

}  // namespace sluice::proto
