#include "auth/redact.hpp"

#include <algorithm>
#include <array>

#include "auth/ascii.hpp"
#include "log/redact.hpp"

namespace sluice::auth {

namespace {

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// `text` at `at` starts with `prefix` (ASCII case-insensitive) at a word boundary.
bool starts_at(std::string_view text, std::size_t at, std::string_view prefix) {
  if (prefix.empty() || text.size() - at < prefix.size() || (at > 0 && word_char(text[at - 1]))) return false;
  return std::equal(prefix.begin(), prefix.end(), text.begin() + static_cast<std::ptrdiff_t>(at),
                    [](char p, char t) { return ascii_lower(p) == ascii_lower(t); });
}

bool value_delimiter(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '&' || c == ';' || c == ',' || c == '"' || c == '\'' ||
         c == '<' || c == '>';
}

std::size_t value_end(std::string_view text, std::size_t from) {
  while (from < text.size() && !value_delimiter(text[from])) ++from;
  return from;
}

std::size_t line_end(std::string_view text, std::size_t from) {
  while (from < text.size() && text[from] != '\r' && text[from] != '\n') ++from;
  return from;
}

struct Rule {
  std::string_view prefix;
  bool whole_line;  // a header line: its whole value is a credential
};

constexpr std::array<Rule, 7> kRules = {{
    {"authorization:", true},
    {"proxy-authorization:", true},
    {"cookie:", true},
    {"bearer ", false},
    {"token=", false},
    {"access_token=", false},   // OAuth's name for the query parameter
    {"authorization=", false},  // Mercure's
}};

// The length of the name to keep before a redacted value at `at` (0: none),
// and whether the value runs to the end of the line.
std::size_t credential_name(std::string_view text, std::size_t at, std::string_view cookie_prefix, bool& whole_line) {
  for (const Rule& rule : kRules) {
    if (!starts_at(text, at, rule.prefix)) continue;
    whole_line = rule.whole_line;
    std::size_t keep = rule.prefix.size();
    while (whole_line && at + keep < text.size() && text[at + keep] == ' ') ++keep;
    return keep;
  }
  whole_line = false;
  return starts_at(text, at, cookie_prefix) ? cookie_prefix.size() : 0;
}

}  // namespace

std::string redact(std::string_view text, std::string_view cookie_name) {
  std::string out;
  out.reserve(text.size());
  const std::string cookie_prefix = cookie_name.empty() ? std::string() : std::string(cookie_name) + "=";
  std::size_t i = 0;
  while (i < text.size()) {
    bool whole_line = false;
    if (const std::size_t keep = credential_name(text, i, cookie_prefix, whole_line); keep > 0) {
      out.append(text.substr(i, keep));
      out += kRedacted;
      i = whole_line ? line_end(text, i + keep) : value_end(text, i + keep);
    } else if (const std::size_t jwt = log::jwt_shape_length(text, i); jwt > 0) {
      out += kRedacted;
      i += jwt;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

}  // namespace sluice::auth
