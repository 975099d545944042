#include "proto/base64url.hpp"

#include <array>
#include <cstdint>

namespace sluice::proto {

namespace {

constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::uint8_t kNotInUrlAlphabet = 0xff;

constexpr std::array<std::uint8_t, 256> make_url_values() {
  std::array<std::uint8_t, 256> values{};
  values.fill(kNotInUrlAlphabet);
  for (std::size_t i = 0; i < kUrlAlphabet.size(); ++i) {
    values[static_cast<unsigned char>(kUrlAlphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return values;
}

constexpr std::array<std::uint8_t, 256> kUrlValues = make_url_values();

}  // namespace

bool base64url_decode(std::string_view in, std::string& out) {
  out.clear();
  if (in.size() % 4 == 1) return false;
  out.reserve(in.size() / 4 * 3 + 2);
  std::uint32_t bits = 0;
  int held = 0;  // bits waiting in `bits`
  for (const char c : in) {
    const std::uint8_t value = kUrlValues[static_cast<unsigned char>(c)];
    if (value == kNotInUrlAlphabet) return false;
    bits = (bits << 6) | value;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<char>((bits >> held) & 0xffu));
    }
  }
  // Two or four bits left over must be zero: "QQ" and "QR" would otherwise
  // both decode to "A".
  return (bits & ((1u << held) - 1u)) == 0;
}

void base64url_append(std::string_view bytes, std::string& out) {
  std::uint32_t bits = 0;
  int held = 0;
  for (const char c : bytes) {
    bits = (bits << 8) | static_cast<unsigned char>(c);
    held += 8;
    while (held >= 6) {
      held -= 6;
      out.push_back(kUrlAlphabet[(bits >> held) & 0x3fu]);
    }
  }
  if (held > 0) out.push_back(kUrlAlphabet[(bits << (6 - held)) & 0x3fu]);
}

}  // namespace sluice::proto
