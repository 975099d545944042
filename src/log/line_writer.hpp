// Owns: LineWriter, which formats one log line, logfmt or JSON, into a
// fixed buffer the caller owns, and never past it.
//
//   level=info ts=2025-01-31T12:00:00.123Z msg="stream opened" topic=news peer=127.0.0.1:5342
//   {"level":"info","ts":"2025-01-31T12:00:00.123Z","msg":"stream opened","topic":"news","peer":"127.0.0.1:5342"}
//
// Values are written as printable ASCII: a quote or backslash is escaped,
// and any other byte outside 0x20..0x7e is written as its value (JSON
// \u00XX, logfmt \xHH), so a value can neither end its field early nor
// start a new line, and a reader can recover every byte. When the next
// piece does not fit, the value is cut there, no further field is written,
// and the line ends with truncated=true: a line never exceeds the buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sluice::log {

enum class Format : std::uint8_t { logfmt, json };

class LineWriter {
 public:
  // `buffer` must hold at least kMinLine bytes.
  LineWriter(std::span<char> buffer, Format format);

  static constexpr std::size_t kMinLine = 64;
  static constexpr std::size_t kMaxKey = 64;  // longer keys are not written (keys are the code's own names)

  void field(std::string_view key, std::string_view value);
  void field(std::string_view key, std::uint64_t value);
  void field(std::string_view key, std::int64_t value);
  void field(std::string_view key, bool value);
  // Unsigned, signed and bool overloads for the other integer types.
  void field(std::string_view key, unsigned value) { field(key, static_cast<std::uint64_t>(value)); }
  void field(std::string_view key, int value) { field(key, static_cast<std::int64_t>(value)); }
  void field(std::string_view key, const char* value) { field(key, std::string_view(value)); }

  // Closes the line (with its newline) and returns it; the view points into
  // the buffer.
  [[nodiscard]] std::string_view finish();
  [[nodiscard]] bool truncated() const { return truncated_; }

 private:
  // Appends `text` whole, or nothing and marks the line truncated.
  bool put(std::string_view text);
  bool begin_field(std::string_view key, bool quoted, std::string_view tail);
  void put_escaped(std::string_view value, bool quoted);

  std::span<char> buffer_;
  std::size_t used_ = 0;
  std::size_t limit_;  // the buffer less room for the line's ending
  Format format_;
  bool first_ = true;
  bool truncated_ = false;
};

}  // namespace sluice::log
