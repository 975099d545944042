// SHA-1 as FIPS 180-4 §6.1 states it: 64-byte blocks, an 80-word schedule,
// the message padded with 0x80, zeros and its bit length.
#include "proto/sha1.hpp"

#include <cstdint>
#include <cstring>

namespace sluice::proto {

namespace {

constexpr std::size_t kBlock = 64;

std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

std::uint32_t load_be(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// The round function and constant of round t (§4.1.1, §4.2.1).
std::uint32_t mix(int t, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  if (t < 20) return ((b & c) | (~b & d)) + 0x5A827999u;
  if (t < 40) return (b ^ c ^ d) + 0x6ED9EBA1u;
  if (t < 60) return ((b & c) | (b & d) | (c & d)) + 0x8F1BBCDCu;
  return (b ^ c ^ d) + 0xCA62C1D6u;
}

void compress(std::uint32_t (&h)[5], const unsigned char* block) {
  std::uint32_t w[80];
  for (int t = 0; t < 16; ++t) w[t] = load_be(block + 4 * t);
  for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; ++t) {
    const std::uint32_t next = rotl(a, 5) + mix(t, b, c, d) + e + w[t];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = next;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

}  // namespace

Sha1Digest sha1(std::span<const char> bytes) {
  std::uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t left = bytes.size();
  for (; left >= kBlock; left -= kBlock, in += kBlock) compress(h, in);
  // The tail, 0x80, zeros, and the length in bits: one block, or two when
  // the tail leaves no room for the 8-byte length.
  unsigned char tail[2 * kBlock] = {};
  std::memcpy(tail, in, left);
  tail[left] = 0x80;
  const std::size_t tail_size = left + 1 + 8 <= kBlock ? kBlock : 2 * kBlock;
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - static_cast<std::size_t>(i)] = static_cast<unsigned char>(bits >> (8 * i));
  for (std::size_t at = 0; at < tail_size; at += kBlock) compress(h, tail + at);
  Sha1Digest digest;
  for (std::size_t i = 0; i < kSha1Size; ++i) digest[i] = static_cast<unsigned char>(h[i / 4] >> (24 - 8 * (i % 4)));
  return digest;
}

}  // namespace sluice::proto
