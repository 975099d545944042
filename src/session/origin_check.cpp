#include "session/origin_check.hpp"

#include <algorithm>

namespace sluice::session {

namespace {

bool same_text(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::ranges::equal(a, b, [&](char x, char y) { return lower(x) == lower(y); });
}

// "https://example.com:8443" -> "example.com:8443" when the scheme is
// `scheme`; "" for another scheme, "null" or none. The scheme counts: a
// page served over plain http from the same host (which anyone on the path
// can rewrite) is not the same origin as the TLS listener it calls.
std::string_view authority_of(std::string_view origin, std::string_view scheme) {
  if (origin.size() <= scheme.size() + 3 || !same_text(origin.substr(0, scheme.size()), scheme) ||
      origin.substr(scheme.size(), 3) != "://") {
    return {};
  }
  return origin.substr(scheme.size() + 3);
}

}  // namespace

OriginVerdict judge_origin(std::string_view origin, std::string_view host, const OriginRule& rule) {
  if (origin.empty()) return OriginVerdict::none;
  const std::string_view authority = authority_of(origin, rule.secure ? "https" : "http");
  if (!authority.empty() && !host.empty() && same_text(authority, host)) return OriginVerdict::same;
  if (rule.allowed.empty()) return rule.authorizing ? OriginVerdict::refused : OriginVerdict::open;
  const bool on_list =
      std::ranges::any_of(rule.allowed, [&](std::string_view allowed) { return same_text(allowed, origin); });
  return on_list ? OriginVerdict::listed : OriginVerdict::refused;
}

bool valid_origin_entry(std::string_view entry) {
  // A page from a file: "null" in browsers, "file://" in some shells.
  if (same_text(entry, "null") || same_text(entry, "file://")) return true;
  const std::size_t colon = entry.find("://");
  if (colon == 0 || colon == std::string_view::npos) return false;
  const std::string_view scheme = entry.substr(0, colon);
  const auto scheme_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
           c == '.';
  };
  if (!std::ranges::all_of(scheme, scheme_char)) return false;
  const std::string_view authority = entry.substr(colon + 3);
  const auto authority_char = [](char c) {
    return c > ' ' && c < 0x7f && c != '/' && c != '?' && c != '#' && c != ',' && c != '@';
  };
  if (authority.empty() || !std::ranges::all_of(authority, authority_char)) return false;
  // Browsers leave a scheme's default port out: "https://host:443" is never sent.
  const bool default_port = (same_text(scheme, "https") && authority.ends_with(":443")) ||
                            (same_text(scheme, "http") && authority.ends_with(":80"));
  return !default_port;
}

std::string_view allow_origin_value(OriginVerdict verdict, std::string_view origin, const OriginRule& rule) {
  if (verdict == OriginVerdict::refused) return {};
  if (rule.allowed.empty() && !rule.authorizing) return "*";
  return verdict == OriginVerdict::none ? std::string_view() : origin;
}

std::string_view cors_headers(std::string_view allow_origin, bool preflight, std::span<char> out) {
  if (allow_origin.empty()) return {};
  std::size_t used = 0;
  bool fits = true;
  const auto append = [&](std::string_view text) {
    fits = fits && used + text.size() <= out.size();
    if (fits) used = static_cast<std::size_t>(std::ranges::copy(text, out.begin() + used).out - out.begin());
  };
  append("Access-Control-Allow-Origin: ");
  append(allow_origin);
  append(allow_origin == "*" ? "\r\n" : "\r\nVary: Origin\r\nAccess-Control-Allow-Credentials: true\r\n");
  if (preflight) {
    append("Access-Control-Allow-Methods: GET, POST\r\n"
           "Access-Control-Allow-Headers: Authorization, Content-Type, Last-Event-ID\r\n"
           "Access-Control-Max-Age: 600\r\n");
  }
  return fits ? std::string_view(out.data(), used) : std::string_view();
}

}  // namespace sluice::session
