#include "proto/json_text.hpp"

namespace sluice::proto {

namespace {

bool needs_escape(char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; }

bool append_escape(buf::Sink& out, char c) {
  switch (c) {
    case '"':
      return out.append("\\\"");
    case '\\':
      return out.append("\\\\");
    case '\n':
      return out.append("\\n");
    case '\r':
      return out.append("\\r");
    case '\t':
      return out.append("\\t");
    default: {
      constexpr char kHex[] = "0123456789abcdef";
      const char escaped[] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 0xf], kHex[c & 0xf]};
      return out.append(escaped, sizeof escaped);
    }
  }
}

}  // namespace

bool append_json_string(buf::Sink& out, std::string_view text) {
  bool ok = out.append("\"");
  std::size_t run = 0;  // unescaped bytes waiting to be copied in one append
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!needs_escape(text[i])) {
      ++run;
      continue;
    }
    ok = out.append(text.data() + i - run, run) && append_escape(out, text[i]) && ok;
    run = 0;
  }
  ok = out.append(text.data() + text.size() - run, run) && ok;
  return out.append("\"") && ok;
}

}  // namespace sluice::proto
