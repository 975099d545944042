#include "auth/token_source.hpp"

#include <algorithm>

#include "auth/ascii.hpp"
#include "proto/url.hpp"

namespace sluice::auth {

namespace {

constexpr std::string_view kBearer = "bearer";

// `Authorization: Bearer TOKEN`. Other schemes (Basic, ...) are not sluice's
// and are passed over.
FoundToken from_authorization(std::span<const proto::http1::Header> headers) {
  FoundToken found;
  int seen = 0;
  for (const proto::http1::Header& h : headers) {
    if (!ascii_iequals(h.name, "authorization")) continue;
    if (++seen > 1) return {TokenSource::none, {}, "more than one Authorization header"};
    const std::string_view value = h.value;
    const std::size_t space = value.find(' ');
    if (!ascii_iequals(value.substr(0, space), kBearer)) continue;
    const std::string_view token =
        space == std::string_view::npos ? std::string_view() : trim_spaces(value.substr(space));
    if (token.empty()) return {TokenSource::none, {}, "Authorization: Bearer carries no token"};
    found = {TokenSource::header, token, nullptr};
  }
  return found;
}

std::string_view from_cookies(std::span<const proto::http1::Header> headers, std::string_view name) {
  if (name.empty()) return {};
  for (const proto::http1::Header& h : headers) {
    if (!ascii_iequals(h.name, "cookie")) continue;
    if (const std::string_view value = cookie_value(h.value, name); !value.empty()) return value;
  }
  return {};
}

std::string_view from_query(std::string_view query) {
  proto::url::QueryIterator it(query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key == "token") return value;
  }
  return {};
}

}  // namespace

std::string_view cookie_value(std::string_view cookie_header, std::string_view name) {
  // RFC 6265 §4.2.1: cookie-pairs separated by "; ". The first pair with
  // the name wins, as browsers send the most specific path first.
  while (!cookie_header.empty()) {
    const std::size_t semi = std::min(cookie_header.find(';'), cookie_header.size());
    const std::string_view pair = trim_spaces(cookie_header.substr(0, semi));
    cookie_header.remove_prefix(std::min(semi + 1, cookie_header.size()));
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos || pair.substr(0, eq) != name) continue;
    std::string_view value = pair.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    return value;
  }
  return {};
}

FoundToken find_token(std::span<const proto::http1::Header> headers, std::string_view query,
                      const TokenLookup& lookup) {
  if (const FoundToken header = from_authorization(headers); header.error != nullptr || !header.token.empty()) {
    return header;
  }
  if (const std::string_view cookie = from_cookies(headers, lookup.cookie_name); !cookie.empty()) {
    return {TokenSource::cookie, cookie, nullptr};
  }
  if (lookup.query) {
    if (const std::string_view token = from_query(query); !token.empty()) return {TokenSource::query, token, nullptr};
  }
  return {};
}

std::string_view token_source_name(TokenSource source) {
  switch (source) {
    case TokenSource::none: return "none";
    case TokenSource::header: return "header";
    case TokenSource::cookie: return "cookie";
    case TokenSource::query: return "query";
  }
  return "?";
}

}  // namespace sluice::auth
