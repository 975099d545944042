#include "stamp.hpp"

#include <algorithm>
#include <cstring>

namespace sluice::bench {

namespace {
constexpr char kDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Each byte's two digits, so that a number costs half the lookups: an
// in-process publisher writes a sequence number per event (and a stamp per
// call), and its time counts as the server's.
struct HexPairs {
  char pairs[256][2];
  constexpr HexPairs() : pairs() {
    for (std::size_t b = 0; b < 256; ++b) {
      pairs[b][0] = kDigits[b >> 4];
      pairs[b][1] = kDigits[b & 0xF];
    }
  }
};
constexpr HexPairs kHexPairs;

static_assert(kStampSize % 2 == 0 && kIndexSize % 2 == 0 && kSequenceSize % 2 == 0, "whole bytes of digits");

// `digits` is even.
void write_hex(char* out, std::size_t digits, std::uint64_t value) {
  for (std::size_t i = digits; i > 0; i -= 2, value >>= 8) std::memcpy(out + i - 2, kHexPairs.pairs[value & 0xFF], 2);
}

bool read_hex(std::string_view text, std::uint64_t& value) {
  std::uint64_t v = 0;
  for (const char c : text) {
    const int digit = hex_value(c);
    if (digit < 0) return false;
    v = v << 4 | static_cast<std::uint64_t>(digit);
  }
  value = v;
  return true;
}

char filler_at(std::size_t offset, std::uint32_t index) { return static_cast<char>('a' + (offset + index) % 26); }
}  // namespace

void write_stamp(char* out, std::uint64_t ns) { write_hex(out, kStampSize, ns); }

void write_sequence(char* payload, std::uint32_t index, std::uint64_t seq) {
  write_hex(payload + kIndexOffset, kIndexSize, index);
  write_hex(payload + kSequenceOffset, kSequenceSize, seq);
}

bool read_stamp(std::string_view payload, std::uint64_t& ns) {
  return payload.size() >= kStampSize && read_hex(payload.substr(0, kStampSize), ns);
}

bool read_sequence(std::string_view payload, std::uint32_t& index, std::uint64_t& seq) {
  std::uint64_t i = 0;
  if (payload.size() < kPayloadHeader || !read_hex(payload.substr(kIndexOffset, kIndexSize), i) ||
      !read_hex(payload.substr(kSequenceOffset, kSequenceSize), seq)) {
    return false;
  }
  index = static_cast<std::uint32_t>(i);
  return true;
}

bool filler_intact(std::string_view payload, std::uint32_t index) {
  for (std::size_t i = kPayloadHeader; i < payload.size(); ++i) {
    if (payload[i] != filler_at(i, index)) return false;
  }
  return true;
}

std::string make_payload(std::size_t size, std::uint64_t ns, std::uint32_t index, std::uint64_t seq) {
  std::string payload(std::max(size, kPayloadHeader), ' ');
  for (std::size_t i = kPayloadHeader; i < payload.size(); ++i) payload[i] = filler_at(i, index);
  write_stamp(payload.data(), ns);
  write_sequence(payload.data(), index, seq);
  return payload;
}

}  // namespace sluice::bench
