#include "token_expiry.hpp"

#include <charconv>
#include <string>

namespace sluice::client::detail {

namespace {

// base64url without padding (RFC 7515 2); false on any other byte.
bool decode_base64url(std::string_view in, std::string& out) {
  std::uint32_t bits = 0;
  int held = 0;
  for (const char c : in) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '-') v = 62;
    if (c == '_') v = 63;
    if (v < 0) return false;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<char>((bits >> held) & 0xFF));
    }
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> token_expiry(std::string_view token) {
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || first > 4096 || second - first > 8192) return std::nullopt;
  std::string payload;
  if (!decode_base64url(token.substr(first + 1, second - first - 1), payload)) return std::nullopt;
  // The payload is a JSON object of claims; "exp" is a NumericDate (RFC
  // 7519 2): whole seconds are enough to schedule a refresh.
  std::size_t at = payload.find("\"exp\"");
  if (at == std::string::npos) return std::nullopt;
  at += 5;
  while (at < payload.size() && (payload[at] == ' ' || payload[at] == ':' || payload[at] == '\t')) ++at;
  std::int64_t exp = 0;
  const auto [end, ec] = std::from_chars(payload.data() + at, payload.data() + payload.size(), exp);
  if (ec != std::errc() || end == payload.data() + at) return std::nullopt;
  return exp;
}

}  // namespace sluice::client::detail
