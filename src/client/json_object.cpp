#include "json_object.hpp"

#include <charconv>

namespace sluice::client::detail {

namespace {

void skip_space(std::string_view& in) {
  while (!in.empty() && (in[0] == ' ' || in[0] == '\t' || in[0] == '\n' || in[0] == '\r')) in.remove_prefix(1);
}

bool eat(std::string_view& in, char c) {
  skip_space(in);
  if (in.empty() || in[0] != c) return false;
  in.remove_prefix(1);
  return true;
}

bool read_hex4(std::string_view& in, std::uint32_t& value) {
  if (in.size() < 4) return false;
  const auto [end, ec] = std::from_chars(in.data(), in.data() + 4, value, 16);
  if (ec != std::errc() || end != in.data() + 4) return false;
  in.remove_prefix(4);
  return true;
}

bool is_literal_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || c == 'E';
}

}  // namespace

bool JsonObject::parse(std::string_view text) {
  text_.clear();
  fields_.clear();
  const bool ok = eat(text, '{') && parse_members(text) && (skip_space(text), text.empty());
  if (!ok) fields_.clear();
  return ok;
}

bool JsonObject::parse_members(std::string_view& in) {
  if (eat(in, '}')) return true;
  do {
    Field field{};
    skip_space(in);
    if (!parse_string(in, field.key_at, field.key_size) || !eat(in, ':')) return false;
    skip_space(in);
    const bool quoted = !in.empty() && in[0] == '"';
    const bool ok = quoted ? parse_string(in, field.value_at, field.value_size)
                           : parse_literal(in, field.value_at, field.value_size);
    if (!ok) return false;
    fields_.push_back(field);
  } while (eat(in, ','));
  return eat(in, '}');
}

bool JsonObject::parse_string(std::string_view& in, std::size_t& at, std::size_t& size) {
  if (in.empty() || in[0] != '"') return false;
  in.remove_prefix(1);
  at = text_.size();
  while (!in.empty() && in[0] != '"') {
    if (in[0] == '\\') {
      if (!parse_escape(in)) return false;
      continue;
    }
    const auto plain = in.find_first_of("\"\\");
    const std::string_view run = in.substr(0, plain);
    for (const char c : run) {
      if (static_cast<unsigned char>(c) < 0x20) return false;
    }
    text_.append(run);
    in.remove_prefix(run.size());
  }
  if (in.empty()) return false;
  in.remove_prefix(1);
  size = text_.size() - at;
  return true;
}

bool JsonObject::parse_escape(std::string_view& in) {
  if (in.size() < 2) return false;
  const char c = in[1];
  in.remove_prefix(2);
  constexpr std::string_view kFrom = "\"\\/bfnrt";
  constexpr std::string_view kTo = "\"\\/\b\f\n\r\t";
  if (const auto i = kFrom.find(c); i != std::string_view::npos) {
    text_.push_back(kTo[i]);
    return true;
  }
  std::uint32_t unit = 0;
  if (c != 'u' || !read_hex4(in, unit)) return false;
  if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate with no high one
  if (unit >= 0xD800 && unit <= 0xDBFF) {
    std::uint32_t low = 0;
    if (!in.starts_with("\\u")) return false;
    in.remove_prefix(2);
    if (!read_hex4(in, low) || low < 0xDC00 || low > 0xDFFF) return false;
    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(unit);
  return true;
}

void JsonObject::append_utf8(std::uint32_t cp) {
  if (cp < 0x80) {
    text_.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    text_.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    text_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    text_.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    text_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    text_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    text_.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    text_.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    text_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    text_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// A number, true, false or null: kept as its text. Objects and arrays are
// refused here, which is what keeps the reader flat.
bool JsonObject::parse_literal(std::string_view& in, std::size_t& at, std::size_t& size) {
  std::size_t n = 0;
  while (n < in.size() && is_literal_char(in[n])) ++n;
  const std::string_view literal = in.substr(0, n);
  const bool number = n > 0 && (literal[0] == '-' || (literal[0] >= '0' && literal[0] <= '9'));
  if (!number && literal != "true" && literal != "false" && literal != "null") return false;
  at = text_.size();
  size = n;
  text_.append(literal);
  in.remove_prefix(n);
  return true;
}

bool JsonObject::find(std::string_view key, std::string_view& value) const {
  const std::string_view text = text_;
  for (const Field& f : fields_) {
    if (text.substr(f.key_at, f.key_size) != key) continue;
    value = text.substr(f.value_at, f.value_size);
    return true;
  }
  return false;
}

std::string_view JsonObject::get(std::string_view key) const {
  std::string_view value;
  return find(key, value) ? value : std::string_view();
}

bool JsonObject::get_u64(std::string_view key, std::uint64_t& value) const {
  std::string_view text;
  if (!find(key, text) || text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else if (byte < 0x20) {
      out.append("\\u00");
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace sluice::client::detail
