#include "session/host_check.hpp"

#include <algorithm>
#include <charconv>

namespace sluice::session {

namespace {

struct HostParts {
  std::string_view name;  // lower-case comparison; "[::1]" keeps its brackets
  std::string_view port;  // empty: none given
  bool ok = false;
};

bool same_text(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::ranges::equal(a, b, [&](char x, char y) { return lower(x) == lower(y); });
}

bool valid_port(std::string_view text) {
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && port >= 1 && port <= 65535;
}

// A host name or IPv4 address: letters, digits, '-', '.', '_'.
bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  return std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_';
  });
}

// An IPv6 literal in brackets: hex digits, ':' and '.' (an embedded IPv4).
bool valid_bracketed(std::string_view name) {
  if (name.size() < 4 || name.front() != '[' || name.back() != ']') return false;
  return std::ranges::all_of(name.substr(1, name.size() - 2), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
  });
}

HostParts split_host(std::string_view text) {
  HostParts parts;
  std::size_t name_end = text.size();
  if (text.starts_with('[')) {
    name_end = text.find(']');
    if (name_end == std::string_view::npos) return parts;
    ++name_end;
    if (name_end < text.size() && text[name_end] != ':') return parts;
  } else if (const std::size_t colon = text.find(':'); colon != std::string_view::npos) {
    name_end = colon;
  }
  parts.name = text.substr(0, name_end);
  if (name_end < text.size()) {
    parts.port = text.substr(name_end + 1);
    if (!valid_port(parts.port)) return parts;
  }
  // "localhost." is the same name as "localhost".
  if (parts.name.size() > 1 && parts.name.back() == '.') parts.name.remove_suffix(1);
  parts.ok = parts.name.starts_with('[') ? valid_bracketed(parts.name) : valid_name(parts.name);
  return parts;
}

}  // namespace

bool valid_host_entry(std::string_view entry) { return entry == "*" || split_host(entry).ok; }

bool host_allowed(std::string_view host, std::span<const std::string_view> allowed) {
  if (allowed.empty() || host.empty()) return true;
  const HostParts asked = split_host(host);
  if (!asked.ok) return false;
  return std::ranges::any_of(allowed, [&](std::string_view entry) {
    const HostParts rule = split_host(entry);
    return same_text(rule.name, asked.name) && (rule.port.empty() || rule.port == asked.port);
  });
}

bool loopback_name(std::string_view host) {
  if (same_text(host, "localhost") || host == "::1" || host == "[::1]") return true;
  // 127.0.0.0/8: "127." then digits and dots.
  return host.starts_with("127.") &&
         std::ranges::all_of(host.substr(4), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

std::vector<std::string> hosts_in_force(const std::vector<std::string>& configured,
                                        std::span<const std::string_view> listen_hosts, bool authorizing) {
  if (!configured.empty()) {
    if (std::ranges::find(configured, "*") != configured.end()) return {};
    return configured;
  }
  const bool loopback_only = std::ranges::all_of(listen_hosts, loopback_name);
  if (authorizing || !loopback_only) return {};
  std::vector<std::string> hosts{"localhost", "127.0.0.1", "[::1]"};
  for (const std::string_view host : listen_hosts) {
    if (std::ranges::find(hosts, host) == hosts.end()) hosts.emplace_back(host);
  }
  return hosts;
}

}  // namespace sluice::session
