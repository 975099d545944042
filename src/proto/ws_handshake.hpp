// Owns: the WebSocket opening handshake (RFC 6455 §4): the server's check of
// an upgrade request and the response it writes, and the client's key and
// Sec-WebSocket-Accept helpers.
//
// It knows nothing of HTTP parsing: handshake_request() fills a
// HandshakeRequest from a parsed request, with the header values as
// received and every line of each list field (http1::FieldLines).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "buf/sink.hpp"
#include "proto/http1.hpp"
#include "proto/ws_deflate.hpp"

namespace sluice::proto::ws {

inline constexpr std::size_t kKeySize = 24;     // base64 of 16 bytes
inline constexpr std::size_t kAcceptSize = 28;  // base64 of a SHA-1 digest

// Views of the request; read only during check_handshake(). An absent
// header is an empty view.
struct HandshakeRequest {
  std::string_view method;
  int version_minor = 1;  // HTTP/1.x
  http1::FieldLines upgrade;
  http1::FieldLines connection;
  std::string_view key;          // Sec-WebSocket-Key
  std::string_view version;      // Sec-WebSocket-Version
  http1::FieldLines protocols;   // Sec-WebSocket-Protocol
  http1::FieldLines extensions;  // Sec-WebSocket-Extensions
  std::string_view origin;
  // How many Sec-WebSocket-Key and -Version fields came: each may come once
  // (two keys leave which one the accept answers a guess).
  std::size_t key_fields = 1;
  std::size_t version_fields = 1;
};

// The handshake's fields of a parsed HTTP/1.1 request: every line of each
// list field, and how many came of the fields that may come once.
[[nodiscard]] HandshakeRequest handshake_request(const http1::Request& request);

struct HandshakeOptions {
  std::span<const std::string_view> subprotocols;     // the server's, most preferred first
  std::span<const std::string_view> allowed_origins;  // empty: every origin
  bool deflate_enabled = true;
  int max_server_window_bits = kMaxWindowBits;  // the shared Deflater's window
};

struct HandshakeResult {
  // 101: upgrade (200: an extended CONNECT accepted). 400: not a valid upgrade request. 403: origin refused.
  // 426: not version 13. 500: OpenSSL could not hash the key.
  int http_status = 400;
  const char* reason = "";        // static text saying why, sent as the error body
  std::string_view subprotocol;   // chosen, empty if none; views an options.subprotocols entry
  DeflateParams deflate;          // enabled == false when not negotiated
  char accept[kAcceptSize + 1] = {};  // NUL-terminated Sec-WebSocket-Accept (101 only)
};

// Checks, in order: method GET and HTTP/1.1 or later, an Upgrade list
// holding "websocket" and a Connection list holding "upgrade" (both
// case-insensitive) → else 400; Sec-WebSocket-Version 13 → else 426;
// Sec-WebSocket-Key the canonical base64 of 16 bytes → else 400; Origin in
// allowed_origins (ASCII case-insensitive) → else 403.
// A request without Origin passes the origin check: browsers always send
// it, and any other client could send whatever Origin it liked.
// Subprotocol: the first of options.subprotocols that the client listed;
// none is not an error (the application may refuse later).
// Deflate: negotiate_deflate() over the extension offers when enabled.
[[nodiscard]] HandshakeResult check_handshake(const HandshakeRequest& request, const HandshakeOptions& options);

// A WebSocket opened on an HTTP/2 stream by extended CONNECT (RFC 8441):
// no Upgrade, Connection or key (the stream itself is the tunnel), the
// header values as received.
struct ExtendedConnectRequest {
  std::string_view method;    // :method
  std::string_view protocol;  // :protocol
  std::string_view version;   // sec-websocket-version
  http1::FieldLines protocols;
  http1::FieldLines extensions;
  std::string_view origin;
  std::size_t version_fields = 1;  // sec-websocket-version may come once
};

// Checks, in order: :method CONNECT with :protocol "websocket" → else 400;
// sec-websocket-version 13 → else 426; the origin → else 403. Success is
// 200 (the stream's response status), with the subprotocol and deflate
// chosen as check_handshake() chooses them; `accept` stays empty.
[[nodiscard]] HandshakeResult check_extended_connect(const ExtendedConnectRequest& request,
                                                     const HandshakeOptions& options);

// Writes the response for `result`: for 101 the "HTTP/1.1 101 Switching
// Protocols" head with Upgrade, Connection, Sec-WebSocket-Accept and, when
// chosen, Sec-WebSocket-Protocol and Sec-WebSocket-Extensions; otherwise an
// error response with a text/plain body (the reason) and
// "Connection: close", plus "Sec-WebSocket-Version: 13" for 426.
// Returns false when the sink refused bytes.
[[nodiscard]] bool write_handshake_response(const HandshakeResult& result, buf::Sink& out);

// Writes base64(SHA-1(key + the RFC 6455 GUID)), NUL-terminated, into `out`.
// Returns false for a key over 64 bytes or when OpenSSL fails.
[[nodiscard]] bool compute_accept(std::string_view key, char (&out)[kAcceptSize + 1]);

// Client side: a fresh Sec-WebSocket-Key (16 bytes from the OpenSSL CSPRNG,
// base64, NUL-terminated). Returns false when the CSPRNG has no entropy.
[[nodiscard]] bool make_client_key(char (&out)[kKeySize + 1]);

// Client side: true when `accept` is the Sec-WebSocket-Accept for `key`.
[[nodiscard]] bool verify_accept(std::string_view key, std::string_view accept);

}  // namespace sluice::proto::ws
