// The reader is a cursor (pos_) over the text. The object itself is walked
// member by member at the caller's pace; a nested value is walked by
// skip_container(), a loop over container_step() that keeps its place in
// depth_, objects_ and items_ instead of on the call stack.
#include "proto/json_reader.hpp"

#include <algorithm>
#include <cstring>

#include "proto/json_string.hpp"

namespace sluice::proto::json {

namespace {

constexpr const char* kEndsEarly = "not JSON: the text ends inside the object";
constexpr const char* kExpectedName = "not JSON: expected a member name in quotes";
constexpr const char* kExpectedColon = "not JSON: expected ':' after a member name";
constexpr const char* kExpectedValue = "not JSON: expected a value";
constexpr const char* kExpectedCommaInObject = "not JSON: expected ',' or '}' in an object";
constexpr const char* kExpectedCommaInArray = "not JSON: expected ',' or ']' in an array";
constexpr const char* kBadNumber = "not JSON: a malformed number";
constexpr const char* kBadLiteral = "not JSON: a misspelt literal (true, false or null)";
constexpr const char* kBadEscape = "not JSON: a bad escape in a string";
constexpr const char* kLoneSurrogate = "not JSON: a \\u escape that is half a surrogate pair";

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

bool is_alnum(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at text[at]; false when there are not four.
bool read_hex4(std::string_view text, std::size_t at, std::uint32_t& unit) {
  if (at > text.size() || text.size() - at < 4) return false;
  unit = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const int v = hex_value(text[at + i]);
    if (v < 0) return false;
    unit = (unit << 4) | static_cast<std::uint32_t>(v);
  }
  return true;
}

}  // namespace

ObjectReader::ObjectReader(std::string_view text, const ReadLimits& limits, std::span<char> scratch)
    : text_(text), limits_(limits), scratch_(scratch) {
  limits_.max_depth = std::clamp<std::uint32_t>(limits_.max_depth, 1, kMaxDepth);
}

bool ObjectReader::fail(ReadError error, const char* reason) {
  if (error_ == ReadError::none) {
    error_ = error;
    reason_ = reason;
  }
  return false;
}

bool ObjectReader::fail_at_end() { return fail_syntax(kEndsEarly); }

void ObjectReader::skip_space() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
    ++pos_;
  }
}

bool ObjectReader::open() {
  skip_space();
  if (at_end() || text_[pos_] != '{') return fail(ReadError::not_object, "not a JSON object");
  return open_container('{');
}

bool ObjectReader::count_item() {
  if (++items_[depth_] > limits_.max_members) {
    return fail(ReadError::too_many_members, "more members in an object or elements in an array than allowed");
  }
  return true;
}

bool ObjectReader::open_container(char opener) {
  if (depth_ + 1 > limits_.max_depth) return fail(ReadError::too_deep, "values nested deeper than allowed");
  ++depth_;
  const std::uint64_t bit = std::uint64_t{1} << (depth_ - 1);
  objects_ = opener == '{' ? objects_ | bit : objects_ & ~bit;
  items_[depth_] = 0;
  ++pos_;
  return true;
}

void ObjectReader::close_container() {
  ++pos_;
  --depth_;
}

bool ObjectReader::next_member(std::string_view& name) {
  if (failed() || ended_) return false;
  if (value_due_) {
    Value skipped;
    if (!read_value(skipped, false)) return false;
  }
  skip_space();
  if (at_end()) return fail_at_end();
  if (byte() == '}') {
    close_container();
    ended_ = true;
    return false;
  }
  if (items_[1] > 0) {
    if (byte() != ',') return fail_syntax("not JSON: expected ',' or '}' after a member");
    ++pos_;
    skip_space();
    if (at_end()) return fail_at_end();
  }
  if (!count_item() || !read_name(&name)) return false;
  value_due_ = true;
  return true;
}

// A member's name in quotes, the ':' and the whitespace up to its value.
bool ObjectReader::read_name(std::string_view* name) {
  if (byte() != '"') return fail_syntax(kExpectedName);
  if (!scan_string(name)) return false;
  skip_space();
  if (at_end()) return fail_at_end();
  if (byte() != ':') return fail_syntax(kExpectedColon);
  ++pos_;
  skip_space();
  return true;
}

bool ObjectReader::value_is_container() {
  skip_space();
  return !at_end() && (byte() == '{' || byte() == '[');
}

bool ObjectReader::read_value(Value& value, bool decode) {
  if (failed() || !value_due_) return false;
  value_due_ = false;
  skip_space();
  if (at_end()) return fail_at_end();
  const std::size_t start = pos_;
  const char c = text_[pos_];
  if (c == '{' || c == '[') {
    value.kind = c == '{' ? ValueKind::object : ValueKind::array;
    value.text = {};
    if (!skip_container()) return false;
  } else if (!read_scalar(&value, decode)) {
    return false;
  }
  value.source = text_.substr(start, pos_ - start);
  return true;
}

bool ObjectReader::read_scalar(Value* value, bool decode) {
  const char c = text_[pos_];
  ValueKind kind = ValueKind::null;
  bool ok = false;
  std::string_view decoded;
  if (c == '"') {
    kind = ValueKind::string;
    ok = scan_string(decode ? &decoded : nullptr);
  } else if (c == '-' || is_digit(static_cast<unsigned char>(c))) {
    kind = ValueKind::number;
    ok = scan_number();
  } else if (c == 't' || c == 'f') {
    kind = ValueKind::boolean;
    ok = scan_literal(c == 't' ? "true" : "false");
  } else if (c == 'n') {
    ok = scan_literal("null");
  } else {
    return fail_syntax(kExpectedValue);
  }
  if (ok && value != nullptr) {
    value->kind = kind;
    value->text = decoded;
  }
  return ok;
}

// Walks one object or array, nested ones included, from its opening
// bracket to its closing one.
bool ObjectReader::skip_container() {
  const std::uint32_t base = depth_;
  if (!open_container(text_[pos_])) return false;
  Expect expect = Expect::first_item;
  while (depth_ > base) {
    if (!container_step(expect)) return false;
  }
  return true;
}

// One step inside a nested value: a separator, a closing bracket, or an
// item (a member's name and value, an element), where an item that opens
// a container steps down into it.
bool ObjectReader::container_step(Expect& expect) {
  skip_space();
  if (at_end()) return fail_at_end();
  const bool object = (objects_ >> (depth_ - 1) & 1) != 0;
  const char closer = object ? '}' : ']';
  const char c = text_[pos_];
  if (expect == Expect::after_item) {
    if (c == ',') {
      ++pos_;
      expect = Expect::item;
      return true;
    }
    if (c != closer) return fail_syntax(object ? kExpectedCommaInObject : kExpectedCommaInArray);
    close_container();
    return true;  // still after an item: the parent's
  }
  if (expect == Expect::first_item && c == closer) {
    close_container();
    expect = Expect::after_item;
    return true;
  }
  if (!count_item()) return false;
  if (object && !read_name(nullptr)) return false;
  if (at_end()) return fail_at_end();
  const char v = text_[pos_];
  if (v == '{' || v == '[') {
    expect = Expect::first_item;
    return open_container(v);
  }
  expect = Expect::after_item;
  return read_scalar(nullptr, false);
}

// A string from its opening quote. Bytes are checked in place; when
// `decoded` is wanted and an escape turns up, what came before it is
// copied to the scratch buffer and decoding carries on there.
bool ObjectReader::scan_string(std::string_view* decoded) {
  const std::size_t start = ++pos_;
  // Reaching `stop` without the closing quote means the string is too long,
  // or the text ended inside it.
  const std::size_t stop =
      text_.size() - start <= limits_.max_string_bytes ? text_.size() : start + limits_.max_string_bytes + 1;
  const std::size_t decode_from = used_;
  std::size_t run = start;  // first byte not yet copied to scratch
  bool escaped = false;
  while (true) {
    if (pos_ >= stop) {
      if (pos_ - start > limits_.max_string_bytes) {
        return fail(ReadError::string_too_long, "a string longer than allowed");
      }
      return fail_syntax("not JSON: the text ends inside a string");
    }
    const unsigned char c = byte();
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++pos_;
      continue;
    }
    if (c == '"') break;
    if (c == '\\') {
      if (decoded != nullptr && !emit(text_.data() + run, pos_ - run)) return false;
      escaped = true;
      if (!scan_escape(decoded != nullptr)) return false;
      run = pos_;
      continue;
    }
    if (c < 0x20) return fail_syntax("not JSON: a control character inside a string");
    const std::size_t n = utf8_sequence_length(reinterpret_cast<const unsigned char*>(text_.data()) + pos_,
                                               text_.size() - pos_);
    if (n == 0) return fail_syntax("not JSON: a string that is not UTF-8");
    pos_ += n;
  }
  const std::size_t end = pos_++;
  if (decoded == nullptr) return true;
  if (!escaped) {
    *decoded = text_.substr(start, end - start);
    return true;
  }
  if (!emit(text_.data() + run, end - run)) return false;
  *decoded = std::string_view(scratch_.data() + decode_from, used_ - decode_from);
  return true;
}

bool ObjectReader::scan_escape(bool decode) {
  if (text_.size() - pos_ < 2) return fail_syntax("not JSON: the text ends inside a string");
  const char c = text_[pos_ + 1];
  constexpr std::string_view kFrom = "\"\\/bfnrt";
  constexpr std::string_view kTo = "\"\\/\b\f\n\r\t";
  if (const std::size_t i = kFrom.find(c); i != std::string_view::npos) {
    pos_ += 2;
    return !decode || emit(&kTo[i], 1);
  }
  if (c != 'u') return fail_syntax(kBadEscape);
  return scan_unicode_escape(decode);
}

// \uXXXX, or a pair \uD8XX\uDCXX for a code point above U+FFFF: half a
// pair is refused, since it is no character at all and cannot be UTF-8.
bool ObjectReader::scan_unicode_escape(bool decode) {
  std::uint32_t unit = 0;
  if (!read_hex4(text_, pos_ + 2, unit)) return fail_syntax(kBadEscape);
  pos_ += 6;
  if (unit >= 0xDC00 && unit <= 0xDFFF) return fail_syntax(kLoneSurrogate);
  if (unit >= 0xD800 && unit <= 0xDBFF) {
    std::uint32_t low = 0;
    const bool pair = text_.size() - pos_ >= 2 && text_[pos_] == '\\' && text_[pos_ + 1] == 'u' &&
                      read_hex4(text_, pos_ + 2, low) && low >= 0xDC00 && low <= 0xDFFF;
    if (!pair) return fail_syntax(kLoneSurrogate);
    pos_ += 6;
    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
  }
  return !decode || emit_code_point(unit);
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and no number character
// right after it ("01", "1.2.3" are malformed, not two values).
bool ObjectReader::scan_number() {
  const std::size_t start = pos_;
  const auto digits = [this] {
    const std::size_t from = pos_;
    while (!at_end() && is_digit(byte())) ++pos_;
    return pos_ > from;
  };
  if (byte() == '-') ++pos_;
  if (at_end()) return fail_syntax(kBadNumber);
  if (byte() == '0') {
    ++pos_;
  } else if (!digits()) {
    return fail_syntax(kBadNumber);
  }
  if (!at_end() && byte() == '.') {
    ++pos_;
    if (!digits()) return fail_syntax(kBadNumber);
  }
  if (!at_end() && (byte() == 'e' || byte() == 'E')) {
    ++pos_;
    if (!at_end() && (byte() == '+' || byte() == '-')) ++pos_;
    if (!digits()) return fail_syntax(kBadNumber);
  }
  if (!at_end() && (is_digit(byte()) || byte() == '.' || byte() == 'e' || byte() == 'E' || byte() == '+' ||
                    byte() == '-')) {
    return fail_syntax(kBadNumber);
  }
  if (pos_ - start > limits_.max_number_chars) return fail(ReadError::number_too_long, "a number longer than allowed");
  return true;
}

bool ObjectReader::scan_literal(std::string_view word) {
  if (text_.compare(pos_, word.size(), word) != 0) return fail_syntax(kBadLiteral);
  pos_ += word.size();
  if (!at_end() && is_alnum(byte())) return fail_syntax(kBadLiteral);
  return true;
}

bool ObjectReader::emit(const char* bytes, std::size_t n) {
  if (scratch_.size() - used_ < n) return fail(ReadError::no_room, "decoded strings do not fit the reader's buffer");
  if (n > 0) std::memmove(scratch_.data() + used_, bytes, n);
  used_ += n;
  return true;
}

bool ObjectReader::emit_code_point(std::uint32_t cp) {
  char utf8[4];
  std::size_t n = 0;
  if (cp < 0x80) {
    utf8[n++] = static_cast<char>(cp);
  } else if (cp < 0x800) {
    utf8[n++] = static_cast<char>(0xC0 | (cp >> 6));
    utf8[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    utf8[n++] = static_cast<char>(0xE0 | (cp >> 12));
    utf8[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    utf8[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    utf8[n++] = static_cast<char>(0xF0 | (cp >> 18));
    utf8[n++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    utf8[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    utf8[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return emit(utf8, n);
}

bool ObjectReader::finish() {
  if (failed()) return false;
  if (!ended_) return fail_syntax("the object was not read to its end");
  skip_space();
  if (!at_end()) return fail_syntax("not JSON: bytes after the end of the object");
  return true;
}

}  // namespace sluice::proto::json
