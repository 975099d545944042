// The opening handshake: header lists are matched token by token (never by
// substring, so "Connection: keep-alive-upgrade" does not pass), and the
// checks run in the order that gives a client the most useful answer: a
// request that is no upgrade at all gets 400 before a version mismatch gets
// 426.
#include "proto/ws_handshake.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "proto/base64.hpp"
#include "proto/random_bytes.hpp"
#include "proto/sha1.hpp"

namespace sluice::proto::ws {

namespace {

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr std::size_t kMaxKeyToHash = 64;
constexpr std::size_t kKeyBytes = 16;
static_assert(base64_encoded_size(kKeyBytes) == kKeySize && base64_encoded_size(kSha1Size) == kAcceptSize);

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Calls `match` on each trimmed element of a comma-separated list until it
// returns true.
template <typename Match>
bool any_element(std::string_view list, Match match) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (match(trim(list.substr(0, comma)))) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

bool has_token(const http1::FieldLines& lines, std::string_view token) {
  for (std::string_view line : lines) {
    if (any_element(line, [token](std::string_view element) { return iequals(element, token); })) return true;
  }
  return false;
}

bool is_base64_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

// 16 bytes fill 21 base64 digits and 2 bits of the 22nd, so canonical
// base64 has one of A, Q, g, w (low four bits zero) there, then "==".
bool is_valid_key(std::string_view key) {
  if (key.size() != kKeySize || key.substr(22) != "==") return false;
  if (!std::all_of(key.begin(), key.begin() + 22, is_base64_char)) return false;
  return std::string_view("AQgw").find(key[21]) != std::string_view::npos;
}

const char* check_request(const HandshakeRequest& request) {
  if (request.method != "GET") return "a WebSocket upgrade must use GET";
  if (request.version_minor < 1) return "a WebSocket upgrade needs HTTP/1.1";
  if (!has_token(request.upgrade, "websocket")) return "Upgrade does not name websocket";
  if (!has_token(request.connection, "upgrade")) return "Connection does not name upgrade";
  if (request.key_fields > 1) return "Sec-WebSocket-Key given more than once";
  if (request.version_fields > 1) return "Sec-WebSocket-Version given more than once";
  return nullptr;
}

bool origin_allowed(std::string_view origin, std::span<const std::string_view> allowed) {
  origin = trim(origin);
  if (allowed.empty() || origin.empty()) return true;
  return std::any_of(allowed.begin(), allowed.end(), [origin](std::string_view a) { return iequals(a, origin); });
}

// Subprotocol names are compared exactly (RFC 6455 §11.3.4 registers them
// case-sensitively); the server's preference order wins.
std::string_view choose_subprotocol(const http1::FieldLines& offered, std::span<const std::string_view> supported) {
  for (std::string_view mine : supported) {
    for (std::string_view line : offered) {
      if (any_element(line, [mine](std::string_view theirs) { return theirs == mine; })) return mine;
    }
  }
  return {};
}

// Offers are read in the client's order across its lines: the first line
// with an acceptable one answers, and a line with none (or a malformed one)
// leaves the choice to the next.
DeflateParams negotiate_deflate_lines(const http1::FieldLines& offers, int max_server_window_bits) {
  for (std::string_view line : offers) {
    if (const DeflateParams params = negotiate_deflate(line, max_server_window_bits); params.enabled) return params;
  }
  return {};
}

HandshakeResult refuse(int status, const char* reason) {
  HandshakeResult result;
  result.http_status = status;
  result.reason = reason;
  return result;
}

const char* status_text(int status) {
  switch (status) {
    case 101:
      return "Switching Protocols";
    case 403:
      return "Forbidden";
    case 426:
      return "Upgrade Required";
    case 500:
      return "Internal Server Error";
    default:
      return "Bad Request";
  }
}

bool write_upgrade(const HandshakeResult& result, buf::Sink& out) {
  bool ok = out.append("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n");
  ok = ok && out.append("Sec-WebSocket-Accept: ") && out.append(result.accept) && out.append("\r\n");
  if (!result.subprotocol.empty()) {
    ok = ok && out.append("Sec-WebSocket-Protocol: ") && out.append(result.subprotocol) && out.append("\r\n");
  }
  if (result.deflate.enabled) {
    ok = ok && out.append("Sec-WebSocket-Extensions: ") && write_deflate_response(result.deflate, out) &&
         out.append("\r\n");
  }
  return ok && out.append("\r\n");
}

bool append_number(buf::Sink& out, std::size_t n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  return out.append(digits, static_cast<std::size_t>(end - digits));
}

bool write_refusal(const HandshakeResult& result, buf::Sink& out) {
  const std::string_view reason = result.reason;
  bool ok = out.append("HTTP/1.1 ") && append_number(out, static_cast<std::size_t>(result.http_status)) &&
            out.append(" ") && out.append(status_text(result.http_status)) && out.append("\r\n");
  if (result.http_status == 426) ok = ok && out.append("Sec-WebSocket-Version: 13\r\n");
  ok = ok && out.append("Content-Type: text/plain\r\nConnection: close\r\nContent-Length: ") &&
       append_number(out, reason.size() + 1) && out.append("\r\n\r\n");
  return ok && out.append(reason) && out.append("\n");
}

}  // namespace

HandshakeRequest handshake_request(const http1::Request& request) {
  return {.method = request.method_text,
          .version_minor = request.version_minor,
          .upgrade = request.list("Upgrade"),
          .connection = request.list("Connection"),
          .key = request.header("Sec-WebSocket-Key"),
          .version = request.header("Sec-WebSocket-Version"),
          .protocols = request.list("Sec-WebSocket-Protocol"),
          .extensions = request.list("Sec-WebSocket-Extensions"),
          .origin = request.header("Origin"),
          .key_fields = request.header_count("Sec-WebSocket-Key"),
          .version_fields = request.header_count("Sec-WebSocket-Version")};
}

HandshakeResult check_handshake(const HandshakeRequest& request, const HandshakeOptions& options) {
  if (const char* why = check_request(request)) return refuse(400, why);
  if (trim(request.version) != "13") return refuse(426, "only Sec-WebSocket-Version 13 is supported");
  const std::string_view key = trim(request.key);
  if (!is_valid_key(key)) return refuse(400, "Sec-WebSocket-Key is not base64 of 16 bytes");
  if (!origin_allowed(request.origin, options.allowed_origins)) return refuse(403, "origin not allowed");
  HandshakeResult result;
  if (!compute_accept(key, result.accept)) return refuse(500, "could not compute Sec-WebSocket-Accept");
  result.http_status = 101;
  result.reason = "upgrade accepted";
  result.subprotocol = choose_subprotocol(request.protocols, options.subprotocols);
  if (options.deflate_enabled) result.deflate = negotiate_deflate_lines(request.extensions, options.max_server_window_bits);
  return result;
}

HandshakeResult check_extended_connect(const ExtendedConnectRequest& request, const HandshakeOptions& options) {
  // The protocol's name is a token compared without case, as Upgrade's is.
  if (request.method != "CONNECT" || !iequals(request.protocol, "websocket")) {
    return refuse(400, "a WebSocket over HTTP/2 is :method CONNECT with :protocol websocket");
  }
  if (request.version_fields > 1) return refuse(400, "Sec-WebSocket-Version given more than once");
  if (trim(request.version) != "13") return refuse(426, "only Sec-WebSocket-Version 13 is supported");
  if (!origin_allowed(request.origin, options.allowed_origins)) return refuse(403, "origin not allowed");
  HandshakeResult result;
  result.http_status = 200;
  result.reason = "stream accepted";
  result.subprotocol = choose_subprotocol(request.protocols, options.subprotocols);
  if (options.deflate_enabled) result.deflate = negotiate_deflate_lines(request.extensions, options.max_server_window_bits);
  return result;
}

bool write_handshake_response(const HandshakeResult& result, buf::Sink& out) {
  return result.http_status == 101 ? write_upgrade(result, out) : write_refusal(result, out);
}

bool compute_accept(std::string_view key, char (&out)[kAcceptSize + 1]) {
  if (key.size() > kMaxKeyToHash) return false;
  char input[kMaxKeyToHash + kGuid.size()];
  std::memcpy(input, key.data(), key.size());
  std::memcpy(input + key.size(), kGuid.data(), kGuid.size());
  const Sha1Digest digest = sha1({input, key.size() + kGuid.size()});
  return base64_encode(digest, out) == kAcceptSize;
}

bool make_client_key(char (&out)[kKeySize + 1]) {
  unsigned char nonce[kKeyBytes];
  if (!random_bytes(nonce)) return false;
  return base64_encode(nonce, out) == kKeySize;
}

bool verify_accept(std::string_view key, std::string_view accept) {
  char expected[kAcceptSize + 1];
  return compute_accept(trim(key), expected) && trim(accept) == std::string_view(expected, kAcceptSize);
}

}  // namespace sluice::proto::ws
