#include "stamp.hpp"

#include <algorithm>

namespace sluice::bench {

namespace {
constexpr char kDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

void write_stamp(char* out, std::uint64_t ns) {
  for (int i = static_cast<int>(kStampSize) - 1; i >= 0; --i, ns >>= 4) out[i] = kDigits[ns & 0xF];
}

bool read_stamp(std::string_view payload, std::uint64_t& ns) {
  if (payload.size() < kStampSize) return false;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < kStampSize; ++i) {
    const int digit = hex_value(payload[i]);
    if (digit < 0) return false;
    value = value << 4 | static_cast<std::uint64_t>(digit);
  }
  ns = value;
  return true;
}

std::string make_payload(std::size_t size, std::uint64_t ns) {
  std::string payload(std::max(size, kStampSize), 'x');
  write_stamp(payload.data(), ns);
  return payload;
}

}  // namespace sluice::bench
