// Owns: json::ObjectReader, a bounded pull reader for one JSON object
// (RFC 8259) held whole in memory. The caller takes the members one by
// one, reads the values it wants and lets the reader skip the others.
//
// It is built for input written by an attacker:
// - no recursion: nested values are walked by a loop that keeps a depth
//   counter and one bit per level (object or array), so the stack is the
//   same for `[` nested 16 times and 100,000 times; the second stops at
//   the first `[` past ReadLimits::max_depth;
// - no allocation: a decoded string is a view into the text itself when it
//   holds no escape, else it is decoded into a buffer the caller gives;
// - one pass: each byte is looked at once, and the reader stops at the
//   first byte past a limit (a string, a number, members of one object or
//   elements of one array, nesting);
// - every byte is checked, skipped values included: strings (escapes,
//   surrogate pairs, UTF-8, no raw control characters), numbers by the
//   grammar, literals, structure, and nothing but whitespace after the
//   object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sluice::proto::json {

// The deepest nesting a ReadLimits may allow (one bit of state per level).
inline constexpr std::uint32_t kMaxDepth = 64;

struct ReadLimits {
  std::uint32_t max_depth = 16;        // levels; the object itself is level 1 (1 .. kMaxDepth)
  std::size_t max_string_bytes = 1 << 20;  // between a string's quotes as written, names included
  std::size_t max_number_chars = 32;   // characters of one number as written
  std::size_t max_members = 64;        // members of one object, elements of one array
};

enum class ReadError : std::uint8_t {
  none,
  not_object,        // the text is not a JSON object (a bare value, an array, empty)
  syntax,            // not JSON: the reason says where it went wrong
  too_deep,          // nested past max_depth
  string_too_long,   // past max_string_bytes
  number_too_long,   // past max_number_chars
  too_many_members,  // past max_members
  no_room,           // decoded strings do not fit the caller's buffer
};

enum class ValueKind : std::uint8_t { string, number, boolean, null, object, array };

struct Value {
  ValueKind kind = ValueKind::null;
  // The value as written: a string with its quotes, an object or an array
  // whole. A view into the text.
  std::string_view source;
  // A string's decoded text, when read_value() was asked to decode; a view
  // into the text or into the caller's buffer.
  std::string_view text;
};

class ObjectReader {
 public:
  // `text` and `scratch` must outlive the reader and every view it hands
  // out. A scratch of text.size() bytes never runs out: decoded strings
  // are never longer than their source.
  ObjectReader(std::string_view text, const ReadLimits& limits, std::span<char> scratch);

  // Reads up to the object's `{`. False (not_object) when the text, after
  // whitespace, does not start with one.
  [[nodiscard]] bool open();
  // Skips the value of the previous member if it was not read, then reads
  // the next member's name (decoded) and its ':'. False at the object's
  // closing `}` (failed() false), or on an error.
  [[nodiscard]] bool next_member(std::string_view& name);
  // Whether the value due starts with `{` or `[`, without reading it.
  [[nodiscard]] bool value_is_container();
  // Reads the value due. `decode`: a string is decoded into value.text.
  // Objects and arrays are checked whole and handed over as source only.
  [[nodiscard]] bool read_value(Value& value, bool decode);
  // After next_member() said the object ended: only whitespace may follow.
  [[nodiscard]] bool finish();

  // Bytes of the caller's buffer holding decoded strings; the rest is free.
  [[nodiscard]] std::size_t scratch_used() const { return used_; }
  [[nodiscard]] bool failed() const { return error_ != ReadError::none; }
  [[nodiscard]] ReadError error() const { return error_; }
  // One line saying what was wrong; "" when nothing was.
  [[nodiscard]] const char* reason() const { return reason_; }

 private:
  enum class Expect : std::uint8_t { first_item, item, after_item };

  bool fail(ReadError error, const char* reason);
  bool fail_syntax(const char* reason) { return fail(ReadError::syntax, reason); }
  bool fail_at_end();
  void skip_space();
  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
  [[nodiscard]] unsigned char byte() const { return static_cast<unsigned char>(text_[pos_]); }
  bool count_item();
  bool open_container(char opener);
  void close_container();
  bool skip_container();
  bool container_step(Expect& expect);
  bool read_name(std::string_view* name);
  bool read_scalar(Value* value, bool decode);
  bool scan_string(std::string_view* decoded);
  bool scan_escape(bool decode);
  bool scan_unicode_escape(bool decode);
  bool scan_number();
  bool scan_literal(std::string_view word);
  bool emit(const char* bytes, std::size_t n);
  bool emit_code_point(std::uint32_t cp);

  std::string_view text_;
  ReadLimits limits_;
  std::span<char> scratch_;
  std::size_t used_ = 0;  // bytes of scratch_ holding decoded strings
  std::size_t pos_ = 0;
  std::uint32_t depth_ = 0;
  std::uint64_t objects_ = 0;  // bit d-1 set: level d is an object, else an array
  std::size_t items_[kMaxDepth + 1] = {};  // members or elements so far, per level
  bool value_due_ = false;
  bool ended_ = false;
  ReadError error_ = ReadError::none;
  const char* reason_ = "";
};

}  // namespace sluice::proto::json
