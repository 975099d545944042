#include "broker/endpoint.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

namespace sluice::broker {

namespace {

constexpr std::string_view kScheme = "redis://";

bool fail(std::string& error, std::string_view url, std::string_view why) {
  error = "broker.url '" + std::string(url) + "': " + std::string(why);
  return false;
}

bool is_address(const std::string& host, int family) {
  unsigned char bytes[16];
  return ::inet_pton(family, host.c_str(), bytes) == 1;
}

bool parse_port(std::string_view text, std::uint16_t& port) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535) {
    return false;
  }
  port = static_cast<std::uint16_t>(value);
  return true;
}

// Splits "host", "host:port", "[v6]" or "[v6]:port".
bool split_authority(std::string_view authority, std::string& host, std::string_view& port, bool& bracketed) {
  bracketed = authority.starts_with('[');
  if (!bracketed) {
    const auto colon = authority.find(':');
    host = std::string(authority.substr(0, colon));
    port = colon == std::string_view::npos ? std::string_view() : authority.substr(colon + 1);
    return colon == std::string_view::npos || !port.empty();
  }
  const auto close = authority.find(']');
  if (close == std::string_view::npos) return false;
  const std::string_view rest = authority.substr(close + 1);
  if (!rest.empty() && (!rest.starts_with(':') || rest.size() == 1)) return false;
  host = std::string(authority.substr(1, close - 1));
  port = rest.empty() ? std::string_view() : rest.substr(1);
  return true;
}

}  // namespace

bool parse_endpoint(std::string_view url, Endpoint& out, std::string& error) {
  if (url.starts_with("rediss://")) return fail(error, url, "TLS to Redis is not supported yet; use redis://");
  if (!url.starts_with(kScheme)) return fail(error, url, "want redis://ADDRESS[:PORT]");
  const std::string_view authority = url.substr(kScheme.size());
  if (authority.find('@') != std::string_view::npos) return fail(error, url, "a user or password is not supported yet");
  if (authority.find('/') != std::string_view::npos) {
    return fail(error, url, "a database number or path is not supported");
  }
  std::string_view port;
  bool bracketed = false;
  if (!split_authority(authority, out.host, port, bracketed)) return fail(error, url, "want redis://ADDRESS[:PORT]");
  const bool address =
      bracketed ? is_address(out.host, AF_INET6) : (is_address(out.host, AF_INET) || out.host == "localhost");
  if (!address) {
    return fail(error, url, "the host must be an IPv4 address, [IPv6] or localhost (names are not resolved)");
  }
  out.port = kDefaultRedisPort;
  if (!port.empty() && !parse_port(port, out.port)) return fail(error, url, "the port must be 1-65535");
  return true;
}

bool parse_endpoints(const std::vector<std::string>& urls, std::vector<Endpoint>& out, std::string& error) {
  out.clear();
  if (urls.empty()) {
    error = "broker.url: give at least one redis://ADDRESS[:PORT]";
    return false;
  }
  if (urls.size() > kMaxShards) {
    error = "broker.url: at most " + std::to_string(kMaxShards) + " instances, got " + std::to_string(urls.size());
    return false;
  }
  for (const std::string& url : urls) {
    Endpoint endpoint;
    if (!parse_endpoint(url, endpoint, error)) return false;
    if (std::find(out.begin(), out.end(), endpoint) != out.end()) {
      return fail(error, url, "the same instance is listed twice");
    }
    out.push_back(std::move(endpoint));
  }
  return true;
}

}  // namespace sluice::broker
