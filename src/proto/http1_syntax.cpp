#include "http1_syntax.hpp"

#include <limits>

namespace sluice::proto::http1::detail {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  const char l = lower(c);
  if (l >= 'a' && l <= 'f') return l - 'a' + 10;
  return -1;
}

// value * base + digit, refusing to wrap around.
bool accumulate(std::uint64_t& value, std::uint64_t base, std::uint64_t digit) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (value > (kMax - digit) / base) return false;
  value = value * base + digit;
  return true;
}

}  // namespace

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_tchar(c)) return false;
  }
  return true;
}

bool is_field_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return c == '\t' || (u >= 0x20 && u != 0x7f);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

NumberStatus parse_decimal(std::string_view s, std::uint64_t& value) {
  if (s.empty()) return NumberStatus::malformed;
  value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return NumberStatus::malformed;
    if (!accumulate(value, 10, static_cast<std::uint64_t>(c - '0'))) return NumberStatus::overflow;
  }
  return NumberStatus::ok;
}

NumberStatus parse_hex_prefix(std::string_view s, std::uint64_t& value, std::size_t& digits) {
  value = 0;
  for (digits = 0; digits < s.size(); ++digits) {
    const int d = hex_value(s[digits]);
    if (d < 0) break;
    if (!accumulate(value, 16, static_cast<std::uint64_t>(d))) return NumberStatus::overflow;
  }
  return digits == 0 ? NumberStatus::malformed : NumberStatus::ok;
}

bool list_has_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (iequals(trim_ows(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

LineScan scan_line(std::string_view in, std::size_t begin, std::size_t& pos,
                   std::size_t max_length) {
  for (; pos < in.size(); ++pos) {
    const char c = in[pos];
    if (c == '\r') {
      if (pos + 1 == in.size()) return {LineStatus::need_more, 0};
      if (in[pos + 1] != '\n') return {LineStatus::bare_cr, 0};
      return {LineStatus::found, pos - begin};
    }
    if (c == '\n') return {LineStatus::bare_lf, 0};
    if (pos - begin >= max_length) return {LineStatus::too_long, 0};
  }
  return {LineStatus::need_more, 0};
}

}  // namespace sluice::proto::http1::detail
