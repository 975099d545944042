// Fuzzes the WebSocket opening handshake and permessage-deflate negotiation.
// Byte 0 picks the options (origin allow-list, deflate on or off, the
// server's window); the rest is split at '\n' into the request fields
// method, upgrade, connection, key, version, protocols, extensions, origin
// (a list field further split at '\r' into lines, as sent on several);
// the whole rest is also given to negotiate_deflate() on its own, and the
// same fields (upgrade read as :protocol) to check_extended_connect(), the
// handshake of a WebSocket over HTTP/2.
//
// Invariants, abort() on violation: the status is one of 101, 400, 403, 426;
// a 101 carries an accept value that verify_accept() confirms, a chosen
// subprotocol the server offered, and deflate parameters in range whose
// response header, read back as an offer, is accepted with the same window
// sizes; the response writer succeeds and starts with the status line. An
// extended CONNECT is 200, 400, 403 or 426; 200 only for CONNECT with
// :protocol websocket (in any case) and version 13, with the same choices.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "proto/ws_deflate.hpp"
#include "proto/ws_handshake.hpp"

namespace {

using namespace sluice::proto::ws;
using sluice::proto::http1::FieldLines;
using sluice::proto::http1::Header;

void check(bool ok) {
  if (!ok) std::abort();
}

class StringSink final : public sluice::buf::Sink {
 public:
  using Sink::append;
  bool append(const char* data, std::size_t n) override {
    bytes.append(data, n);
    return true;
  }
  std::string bytes;
};

constexpr std::array<std::string_view, 2> kSubprotocols = {"chat", "superchat"};
constexpr std::array<std::string_view, 1> kOrigins = {"https://example.com"};

using Fields = std::array<std::string_view, 8>;

Fields split_fields(std::string_view text) {
  Fields fields{};
  for (std::size_t i = 0; i < fields.size() && !text.empty(); ++i) {
    const std::size_t nl = text.find('\n');
    fields[i] = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return fields;
}

// The list fields' lines: each of those fields split at '\r' into lines of
// one header name, as a request that sent the list on several lines.
class ListLines {
 public:
  explicit ListLines(const Fields& fields) {
    const std::pair<std::size_t, std::string_view> lists[] = {
        {1, "upgrade"}, {2, "connection"}, {5, "protocols"}, {6, "extensions"}};
    for (const auto& [index, name] : lists) {
      std::string_view text = fields[index];
      while (count_ < lines_.size()) {
        const std::size_t cr = text.find('\r');
        lines_[count_++] = {name, text.substr(0, cr)};
        if (cr == std::string_view::npos) break;
        text.remove_prefix(cr + 1);
      }
    }
  }
  [[nodiscard]] FieldLines of(std::string_view name) const { return {std::span(lines_.data(), count_), name}; }

 private:
  std::array<Header, 16> lines_{};
  std::size_t count_ = 0;
};

HandshakeRequest fuzzed_request(const Fields& fields, const ListLines& lists) {
  HandshakeRequest r;
  r.method = fields[0];
  r.upgrade = lists.of("upgrade");
  r.connection = lists.of("connection");
  r.key = fields[3];
  r.version = fields[4];
  r.protocols = lists.of("protocols");
  r.extensions = lists.of("extensions");
  r.origin = fields[7];
  return r;
}

void check_deflate(const DeflateParams& params, int server_bits) {
  if (!params.enabled) return;
  check(params.server_no_context_takeover);
  check(params.server_max_window_bits >= 9 && params.server_max_window_bits <= kMaxWindowBits);
  check(params.server_max_window_bits >= std::min(server_bits, kMaxWindowBits));
  check(params.client_max_window_bits >= kMinWindowBits && params.client_max_window_bits <= kMaxWindowBits);
  StringSink header;
  check(write_deflate_response(params, header));
  const DeflateParams again = negotiate_deflate(header.bytes, params.server_max_window_bits);
  check(again.enabled && again.client_max_window_bits == params.client_max_window_bits);
  check(again.client_no_context_takeover == params.client_no_context_takeover);
}

void check_result(const HandshakeRequest& request, const HandshakeResult& result, int server_bits) {
  const int s = result.http_status;
  check(s == 101 || s == 400 || s == 403 || s == 426);
  check(result.reason != nullptr);
  StringSink response;
  check(write_handshake_response(result, response));
  check(response.bytes.rfind("HTTP/1.1 " + std::to_string(s) + " ", 0) == 0);
  if (s != 101) return;
  check(verify_accept(request.key, result.accept));
  check(result.subprotocol.empty() || result.subprotocol == kSubprotocols[0] || result.subprotocol == kSubprotocols[1]);
  check_deflate(result.deflate, server_bits);
}

void check_extended(const Fields& fields, const ListLines& lists, const HandshakeOptions& options, int server_bits) {
  const ExtendedConnectRequest request{fields[0], fields[1], fields[4], lists.of("protocols"), lists.of("extensions"),
                                       fields[7]};
  const HandshakeResult result = check_extended_connect(request, options);
  const int s = result.http_status;
  check(s == 200 || s == 400 || s == 403 || s == 426);
  check(result.reason != nullptr && result.accept[0] == '\0');
  if (s != 200) return;
  std::string protocol(request.protocol);
  for (char& c : protocol) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  check(request.method == "CONNECT" && protocol == "websocket");
  check(result.subprotocol.empty() || result.subprotocol == kSubprotocols[0] || result.subprotocol == kSubprotocols[1]);
  check_deflate(result.deflate, server_bits);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const int server_bits = 8 + (mode >> 4) % 8;
  HandshakeOptions options;
  options.subprotocols = kSubprotocols;
  if ((mode & 0x01) != 0) options.allowed_origins = kOrigins;
  options.deflate_enabled = (mode & 0x02) == 0;
  options.max_server_window_bits = server_bits;
  const Fields fields = split_fields(text);
  const ListLines lists(fields);
  HandshakeRequest request = fuzzed_request(fields, lists);
  request.version_minor = (mode & 0x04) != 0 ? 0 : 1;
  check_result(request, check_handshake(request, options), server_bits);
  check_deflate(negotiate_deflate(text, server_bits), server_bits);
  check_extended(fields, lists, options, server_bits);
  return 0;
}
