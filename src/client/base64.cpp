#include "base64.hpp"

#include <cstdint>

namespace sluice::client::detail {

namespace {

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Decodes one quantum of four characters, the last of which may end in padding.
bool decode_quantum(std::string_view q, bool last, std::string& out) {
  const std::size_t pad = q[3] != '=' ? 0 : q[2] != '=' ? 1 : 2;
  if (pad > 0 && !last) return false;
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < 4 - pad; ++i) {
    const int v = sextet(q[i]);
    if (v < 0) return false;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
  }
  bits <<= 6 * pad;
  out.push_back(static_cast<char>(bits >> 16));
  if (pad < 2) out.push_back(static_cast<char>((bits >> 8) & 0xFF));
  if (pad < 1) out.push_back(static_cast<char>(bits & 0xFF));
  return true;
}

}  // namespace

bool base64_decode(std::string_view in, std::string& out) {
  out.clear();
  if (in.size() % 4 != 0) return false;
  for (std::size_t at = 0; at < in.size(); at += 4) {
    if (!decode_quantum(in.substr(at, 4), at + 4 == in.size(), out)) return false;
  }
  return true;
}

}  // namespace sluice::client::detail
