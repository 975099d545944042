// Owns: JsonObject, a reader for the flat JSON objects sluice servers send
// (publish replies, loss and reset notices, WebSocket protocol messages):
// one object whose values are strings, numbers, true, false or null.
//
// It is not a general JSON parser on purpose: nested values are refused,
// and parsing reuses one buffer, so reading a notice or a WebSocket event
// allocates nothing once the buffer has grown to the largest one seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::client::detail {

class JsonObject {
 public:
  // Parses `text`. Returns false, leaving no fields, when it is not one flat
  // object: nested values, bad escapes or lone surrogates, trailing bytes.
  [[nodiscard]] bool parse(std::string_view text);

  // A string's unescaped value, or a literal's text ("12", "true", "null").
  // Valid until the next parse(). False when the key is absent.
  [[nodiscard]] bool find(std::string_view key, std::string_view& value) const;
  // The value, or "" when the key is absent.
  [[nodiscard]] std::string_view get(std::string_view key) const;
  // A number, or a string of decimal digits; false otherwise.
  [[nodiscard]] bool get_u64(std::string_view key, std::uint64_t& value) const;

 private:
  struct Field {
    std::size_t key_at;
    std::size_t key_size;
    std::size_t value_at;
    std::size_t value_size;
  };

  bool parse_members(std::string_view& in);
  bool parse_string(std::string_view& in, std::size_t& at, std::size_t& size);
  bool parse_escape(std::string_view& in);
  bool parse_literal(std::string_view& in, std::size_t& at, std::size_t& size);
  void append_utf8(std::uint32_t code_point);

  std::string text_;  // unescaped keys and values, back to back
  std::vector<Field> fields_;
};

// Appends `text` to `out` as a quoted JSON string, escaping '"', '\\' and
// the control characters. `text` should be UTF-8; other bytes pass as they are.
void append_json_string(std::string& out, std::string_view text);

}  // namespace sluice::client::detail
