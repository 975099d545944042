#include "proto/json_string.hpp"

#include <array>
#include <cstdint>

namespace sluice::proto::json {

namespace {

enum class ByteClass : std::uint8_t { copy, escape, multibyte };

constexpr std::array<ByteClass, 256> make_classes() {
  std::array<ByteClass, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    classes[c] = c < 0x20 || c == '"' || c == '\\' ? ByteClass::escape
                 : c >= 0x80                         ? ByteClass::multibyte
                                                     : ByteClass::copy;
  }
  return classes;
}

constexpr std::array<ByteClass, 256> kClasses = make_classes();

bool write_escape(buf::Sink& out, unsigned char c) {
  switch (c) {
    case '"': return out.append("\\\"");
    case '\\': return out.append("\\\\");
    case '\b': return out.append("\\b");
    case '\f': return out.append("\\f");
    case '\n': return out.append("\\n");
    case '\r': return out.append("\\r");
    case '\t': return out.append("\\t");
    default: {
      constexpr char kHex[] = "0123456789abcdef";
      const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
      return out.append(escaped, sizeof escaped);
    }
  }
}

}  // namespace

// The lead byte fixes how many continuation bytes follow and the range of
// the first one (RFC 3629 §4): that is what refuses overlong forms,
// surrogates and code points past U+10FFFF.
std::size_t utf8_sequence_length(const unsigned char* p, std::size_t available) {
  const unsigned char lead = p[0];
  if (lead < 0x80) return 1;
  // A continuation byte, C0/C1 (always overlong), or F5-FF (past U+10FFFF).
  if (lead < 0xC2 || lead > 0xF4) return 0;
  std::size_t follow = 3;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead < 0xE0) {
    follow = 1;
  } else if (lead < 0xF0) {
    follow = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else {
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  }
  if (available <= follow || p[1] < low || p[1] > high) return 0;
  for (std::size_t i = 2; i <= follow; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
  }
  return follow + 1;
}

bool write_string(buf::Sink& out, std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* const end = p + text.size();
  const auto* run = p;  // bytes to copy as they are, appended in one go
  bool ok = out.append("\"");
  while (p < end) {
    const ByteClass kind = kClasses[*p];
    if (kind == ByteClass::copy) {
      ++p;
      continue;
    }
    if (kind == ByteClass::multibyte) {
      if (const std::size_t n = utf8_sequence_length(p, static_cast<std::size_t>(end - p)); n != 0) {
        p += n;
        continue;
      }
    }
    if (p > run) ok = out.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run)) && ok;
    ok = (kind == ByteClass::escape ? write_escape(out, *p) : out.append("\\ufffd")) && ok;
    run = ++p;
  }
  if (p > run) ok = out.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run)) && ok;
  return out.append("\"") && ok;
}

}  // namespace sluice::proto::json
