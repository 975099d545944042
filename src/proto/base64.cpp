#include "proto/base64.hpp"

namespace sluice::proto {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}  // namespace

std::size_t base64_encode(std::span<const unsigned char> in, char* out) {
  char* p = out;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::size_t n = in.size() - i < 3 ? in.size() - i : 3;
    const unsigned group = (unsigned{in[i]} << 16) | (n > 1 ? unsigned{in[i + 1]} << 8 : 0u) | (n > 2 ? in[i + 2] : 0u);
    *p++ = kAlphabet[(group >> 18) & 63];
    *p++ = kAlphabet[(group >> 12) & 63];
    *p++ = n > 1 ? kAlphabet[(group >> 6) & 63] : '=';
    *p++ = n > 2 ? kAlphabet[group & 63] : '=';
  }
  *p = '\0';
  return static_cast<std::size_t>(p - out);
}

}  // namespace sluice::proto
