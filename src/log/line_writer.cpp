#include "log/line_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "log/redact.hpp"

namespace sluice::log {

namespace {

// Room kept back for the longest ending: a closing quote that a cut value
// still needs, the truncated flag, the closing brace and the newline.
constexpr std::string_view kJsonTruncated = ",\"truncated\":true";
constexpr std::string_view kLogfmtTruncated = " truncated=true";
constexpr std::size_t kEndingRoom = 1 + kJsonTruncated.size() + 2;

constexpr char kHex[] = "0123456789abcdef";

bool printable(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

// logfmt quotes a value only when a reader would otherwise split it.
bool needs_quotes(std::string_view value) {
  return value.empty() || std::any_of(value.begin(), value.end(), [](char c) {
           return c == ' ' || c == '=' || c == '"' || c == '\\' || !printable(static_cast<unsigned char>(c));
         });
}

}  // namespace

LineWriter::LineWriter(std::span<char> buffer, Format format)
    : buffer_(buffer), limit_(buffer.size() - kEndingRoom), format_(format) {
  if (format_ == Format::json) put("{");
}

bool LineWriter::put(std::string_view text) {
  if (truncated_ || used_ + text.size() > limit_) {
    truncated_ = true;
    return false;
  }
  if (!text.empty()) std::memcpy(buffer_.data() + used_, text.data(), text.size());
  used_ += text.size();
  return true;
}

// Writes the field's separator, key and (when quoted) opening quote, all or
// nothing, followed by `tail` (a number's digits), also all or nothing with
// them: a line is never left with a key and no value.
bool LineWriter::begin_field(std::string_view key, bool quoted, std::string_view tail) {
  char start[kMaxKey + 32];
  if (key.size() > kMaxKey || tail.size() > 24) {
    truncated_ = true;
    return false;
  }
  std::size_t n = 0;
  const auto add = [&](std::string_view part) {
    if (part.empty()) return;  // an empty view's data() may be null, which memcpy must not see
    std::memcpy(start + n, part.data(), part.size());
    n += part.size();
  };
  if (format_ == Format::json) {
    add(first_ ? "\"" : ",\"");
    add(key);
    add(quoted ? "\":\"" : "\":");
  } else {
    if (!first_) add(" ");
    add(key);
    add(quoted ? "=\"" : "=");
  }
  add(tail);
  if (!put({start, n})) return false;
  first_ = false;
  return true;
}

void LineWriter::field(std::string_view key, std::string_view value) {
  const bool quoted = format_ == Format::json || needs_quotes(value);
  if (!begin_field(key, quoted, {})) return;
  // A token where no credential belongs (pasted into a user agent, a path,
  // an event's name) is kept out all the same: whatever is shaped like a JWT.
  for (std::size_t at = 0;;) {
    const std::size_t found = value.find("eyJ", at);
    if (found == std::string_view::npos) {
      put_escaped(value.substr(at), quoted);
      break;
    }
    const std::size_t jwt = jwt_shape_length(value, found);
    const std::size_t next = found + (jwt > 0 ? jwt : 3);
    put_escaped(value.substr(at, (jwt > 0 ? found : next) - at), quoted);
    if (jwt > 0) put_escaped(kRedacted, quoted);
    at = next;
  }
  // The closing quote always fits: the ending room keeps a byte for it.
  if (quoted) buffer_[used_++] = '"';
}

void LineWriter::put_escaped(std::string_view value, bool quoted) {
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (quoted && (c == '"' || c == '\\')) {
      const char escaped[2] = {'\\', ch};
      if (!put({escaped, 2})) return;
    } else if (printable(c)) {
      if (!put({&ch, 1})) return;
    } else if (format_ == Format::json) {
      const char escaped[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      if (!put({escaped, 6})) return;
    } else {
      const char escaped[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      if (!put({escaped, 4})) return;
    }
  }
}

void LineWriter::field(std::string_view key, std::uint64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  begin_field(key, false, {digits, static_cast<std::size_t>(end - digits)});
}

void LineWriter::field(std::string_view key, std::int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  begin_field(key, false, {digits, static_cast<std::size_t>(end - digits)});
}

void LineWriter::field(std::string_view key, bool value) { begin_field(key, false, value ? "true" : "false"); }

std::string_view LineWriter::finish() {
  std::string_view ending = format_ == Format::json ? "}\n" : "\n";
  std::string_view flag;
  if (truncated_) flag = format_ == Format::json ? kJsonTruncated : kLogfmtTruncated;
  if (first_ && !flag.empty()) flag.remove_prefix(1);  // no field before it: no separator
  for (const std::string_view part : {flag, ending}) {
    if (part.empty()) continue;
    std::memcpy(buffer_.data() + used_, part.data(), part.size());
    used_ += part.size();
  }
  return {buffer_.data(), used_};
}

}  // namespace sluice::log
