// Owns: the one Origin allow-list (ws.allowed_origins) as every route
// applies it: SSE streams, POST publishes and WebSocket upgrades alike, and
// the CORS answers that go with it (a stream's or a publish's
// Access-Control-Allow-Origin, the OPTIONS preflight).
//
// What it protects against: a page on another site using a visitor's
// browser, and the cookie that browser holds, to read a stream or publish
// (cross-site request forgery: a `text/plain` POST needs no preflight, so
// CORS alone would not stop it; nor would it stop a WebSocket). Browsers
// always send Origin on such requests, so a request whose Origin is
// neither the server's own (it names the Host) nor on the list is refused
// with 403. A request without Origin is not from a page on another site
// (browsers send one), and any other client could claim any Origin.
//
// The list empty means any origin may read while no authorizer is
// installed (streams answer `*`), but not write: a page on another site
// could otherwise publish through the browser of someone running sluiced
// on their own machine, where the loopback-only default is the only door.
// With an authorizer, the empty list means the server's own origin only:
// with credentials in play, `*` is never sent.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace sluice::session {

enum class OriginVerdict : std::uint8_t {
  none,       // no Origin header: not a cross-site browser request
  same,       // the Origin names the Host the request was sent to
  listed,     // on the allow-list
  open,       // another origin while the list is empty and no authorizer is installed: it may read, not write
  refused,    // 403
};

struct OriginRule {
  std::span<const std::string_view> allowed;  // ws.allowed_origins
  bool authorizing = false;                   // an authorizer is installed
  bool secure = false;                        // the listener speaks TLS
};

[[nodiscard]] OriginVerdict judge_origin(std::string_view origin, std::string_view host, const OriginRule& rule);

// An entry of ws.allowed_origins that some request's Origin can equal: an
// origin as a browser serializes it, SCHEME://HOST[:PORT] with no path, no
// trailing slash and no default port, "null" or "file://". An entry that is
// not one ("example.com", "https://example.com/", "https://example.com:443")
// would never match and silently refuse the page it was meant to let in.
[[nodiscard]] bool valid_origin_entry(std::string_view entry);

// Access-Control-Allow-Origin's value for an allowed request: "*" while
// the list is empty and no authorizer is installed, else the request's own
// Origin (empty: send none).
[[nodiscard]] std::string_view allow_origin_value(OriginVerdict verdict, std::string_view origin,
                                                  const OriginRule& rule);

// The CORS header lines for an allowed request, each ending in CRLF, written
// into `out`: Access-Control-Allow-Origin (with Vary and, for one named
// origin, Allow-Credentials, so a page may send its cookie), and for a
// preflight the methods, request headers and how long to remember them.
// Empty when `allow_origin` is, or when they do not fit.
[[nodiscard]] std::string_view cors_headers(std::string_view allow_origin, bool preflight, std::span<char> out);

}  // namespace sluice::session
