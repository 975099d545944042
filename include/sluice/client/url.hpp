// Owns: Url, the parsed form of the addresses the client connects to
// (http://host:port/path?query, ws://..., and the same over TLS: https://,
// wss://), and parse_url(), which says in one line what is wrong with an
// address it refuses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::client {

// What the connection carries; `tls` says whether it is encrypted.
enum class Scheme : std::uint8_t { http, ws };

struct Url {
  Scheme scheme = Scheme::http;
  bool tls = false;        // https:// or wss://
  std::string host;        // a name, an IPv4 address, or an IPv6 address without brackets
  std::uint16_t port = 80;  // when the URL names none: 80, or 443 with TLS
  std::string target;      // path and query as sent on the request line; "/" at least

  // The target before '?', and after it (empty when there is no query).
  [[nodiscard]] std::string_view path() const;
  [[nodiscard]] std::string_view query() const;
  // "host:port" for the Host header ("[v6]:port" for an IPv6 address).
  [[nodiscard]] std::string authority() const;
};

// Parses an absolute http://, https://, ws:// or wss:// URL. A fragment
// ("#...") is dropped: it is never sent. On failure returns false and sets
// `error` to one line naming the problem: an empty or malformed URL,
// another scheme, user information ("user@"), an empty host, a port that
// is not 1-65535, or a space or control character anywhere. `out` is
// unspecified after failure.
[[nodiscard]] bool parse_url(std::string_view text, Url& out, std::string& error);

// The scheme `url` starts with, as written (RFC 3986: a letter, then
// letters, digits, '+', '-' or '.', before "://"), or empty when it starts
// with none (a "://" further on, in a query say, is not one).
[[nodiscard]] std::string_view url_scheme(std::string_view url);

// Whether `scheme` is `lower` (given in lower case), letters compared
// without case: "HTTPS" is https.
[[nodiscard]] bool scheme_is(std::string_view scheme, std::string_view lower);

// A scheme as an error line shows it: in lower case, and cut at 16
// characters with "..." after, so that a URL of any length makes a short
// line.
[[nodiscard]] std::string shown_scheme(std::string_view scheme);

}  // namespace sluice::client
