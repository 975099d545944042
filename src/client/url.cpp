#include "sluice/client/url.hpp"

#include <charconv>

namespace sluice::client {

namespace {

bool has_space_or_control(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7F) return true;
  }
  return false;
}

bool parse_scheme(std::string_view scheme, Url& out, std::string& error) {
  out.tls = scheme_is(scheme, "https") || scheme_is(scheme, "wss");
  if (scheme_is(scheme, "http") || scheme_is(scheme, "https")) {
    out.scheme = Scheme::http;
    return true;
  }
  if (scheme_is(scheme, "ws") || scheme_is(scheme, "wss")) {
    out.scheme = Scheme::ws;
    return true;
  }
  error = "unsupported scheme '" + shown_scheme(scheme) + "': use http://, https://, ws:// or wss://";
  return false;
}

bool parse_port(std::string_view text, Url& out, std::string& error) {
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || port == 0 || port > 65535) {
    error = "bad port '" + std::string(text) + "': want 1-65535";
    return false;
  }
  out.port = static_cast<std::uint16_t>(port);
  return true;
}

// Splits "host", "host:port", "[v6]" or "[v6]:port"; `has_port` when a
// ':' introduces a port, even an empty one.
bool split_authority(std::string_view authority, std::string_view& host, std::string_view& port, bool& has_port,
                     std::string& error) {
  has_port = false;
  if (!authority.starts_with('[')) {
    const auto colon = authority.rfind(':');
    has_port = colon != std::string_view::npos;
    host = authority.substr(0, colon);
    port = has_port ? authority.substr(colon + 1) : std::string_view();
    return true;
  }
  const auto close = authority.find(']');
  const std::string_view rest = close == std::string_view::npos ? "" : authority.substr(close + 1);
  if (close == std::string_view::npos || (!rest.empty() && !rest.starts_with(':'))) {
    error = "a bracketed IPv6 host must be [address] or [address]:port";
    return false;
  }
  host = authority.substr(1, close - 1);
  has_port = !rest.empty();
  port = has_port ? rest.substr(1) : rest;
  return true;
}

bool parse_authority(std::string_view authority, Url& out, std::string& error) {
  if (authority.find('@') != std::string_view::npos) {
    error = "user information ('user@') in a URL is not supported";
    return false;
  }
  std::string_view host;
  std::string_view port;
  bool has_port = false;
  if (!split_authority(authority, host, port, has_port, error)) return false;
  if (host.empty()) {
    error = "the URL names no host";
    return false;
  }
  out.host = std::string(host);
  out.port = out.tls ? 443 : 80;
  return !has_port || parse_port(port, out, error);
}

}  // namespace

std::string_view Url::path() const {
  const std::string_view t = target;
  return t.substr(0, t.find('?'));
}

std::string_view Url::query() const {
  const std::string_view t = target;
  const auto mark = t.find('?');
  return mark == std::string_view::npos ? std::string_view() : t.substr(mark + 1);
}

std::string Url::authority() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool parse_url(std::string_view text, Url& out, std::string& error) {
  if (text.empty()) {
    error = "empty URL";
    return false;
  }
  if (has_space_or_control(text)) {
    error = "a URL may not hold spaces or control characters";
    return false;
  }
  const std::string_view scheme = url_scheme(text);
  if (scheme.empty()) {
    error = "not an absolute URL: want http(s)://host:port/path or ws(s)://host:port/path";
    return false;
  }
  if (!parse_scheme(scheme, out, error)) return false;
  std::string_view rest = text.substr(scheme.size() + 3);
  rest = rest.substr(0, rest.find('#'));
  const auto target_at = rest.find_first_of("/?");
  if (!parse_authority(rest.substr(0, target_at), out, error)) return false;
  const std::string_view target = target_at == std::string_view::npos ? "/" : rest.substr(target_at);
  out.target = target.starts_with('?') ? "/" + std::string(target) : std::string(target);
  return true;
}

bool scheme_is(std::string_view scheme, std::string_view lower) {
  if (scheme.size() != lower.size()) return false;
  for (std::size_t i = 0; i < scheme.size(); ++i) {
    const char c = scheme[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != lower[i]) return false;
  }
  return true;
}

std::string shown_scheme(std::string_view scheme) {
  constexpr std::size_t kShown = 16;
  std::string lower(scheme.substr(0, kShown));
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (scheme.size() > kShown) lower += "...";
  return lower;
}

std::string_view url_scheme(std::string_view url) {
  const auto sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return {};
  const auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!is_alpha(url[0])) return {};
  for (const char c : url.substr(1, sep - 1)) {
    if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return {};
  }
  return url.substr(0, sep);
}

}  // namespace sluice::client
