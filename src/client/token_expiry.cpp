#include "token_expiry.hpp"

#include <charconv>
#include <string>

#include "proto/base64url.hpp"

namespace sluice::client::detail {

std::optional<std::int64_t> token_expiry(std::string_view token) {
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || first > 4096 || second - first > 8192) return std::nullopt;
  std::string payload;
  if (!proto::base64url_decode(token.substr(first + 1, second - first - 1), payload)) return std::nullopt;
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
