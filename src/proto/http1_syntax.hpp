// Owns: the character classes and small lexers of RFC 9110/9112 that the
// HTTP/1.1 request parser is built from (tokens, field values, OWS, numbers,
// comma lists, CRLF-terminated lines). Private to src/proto.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::proto::http1::detail {

// tchar (RFC 9110 5.6.2): the characters of methods and field names.
[[nodiscard]] bool is_tchar(char c);
[[nodiscard]] bool is_token(std::string_view s);
[[nodiscard]] inline bool is_ows(char c) { return c == ' ' || c == '\t'; }
// field-vchar, SP or HTAB: anything but control characters and DEL.
[[nodiscard]] bool is_field_char(char c);
[[nodiscard]] bool iequals(std::string_view a, std::string_view b);
[[nodiscard]] std::string_view trim_ows(std::string_view s);

// Numbers are 64-bit on every target, so that a 32-bit device gives a
// Content-Length or chunk size the same answer (413 over max_body, 400 past
// 64 bits) as a 64-bit server.
enum class NumberStatus : std::uint8_t { ok, malformed, overflow };
// 1*DIGIT, nothing else.
[[nodiscard]] NumberStatus parse_decimal(std::string_view s, std::uint64_t& value);
// The chunk-size at the front of `s` (1*HEXDIG); `digits` is how many.
[[nodiscard]] NumberStatus parse_hex_prefix(std::string_view s, std::uint64_t& value,
                                            std::size_t& digits);

// True when the comma-separated list `list` has an element equal to `token`
// (ASCII case-insensitive, OWS around elements ignored).
[[nodiscard]] bool list_has_token(std::string_view list, std::string_view token);

enum class LineStatus : std::uint8_t { need_more, found, bare_lf, bare_cr, too_long };
struct LineScan {
  LineStatus status;
  std::size_t length;  // found: bytes before the CRLF
};
// Looks for the CRLF ending the line that starts at `begin`, examining bytes
// from `pos` on and leaving `pos` where it stopped, so a later call with more
// input resumes there. Reports too_long as soon as the line has more than
// `max_length` bytes, without waiting for its end.
[[nodiscard]] LineScan scan_line(std::string_view in, std::size_t begin, std::size_t& pos,
                                 std::size_t max_length);

}  // namespace sluice::proto::http1::detail
