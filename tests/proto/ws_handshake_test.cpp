#include "proto/ws_handshake.hpp"

#include <gtest/gtest.h>

#include "collecting_sink.hpp"

#include <string>
#include <vector>

namespace sluice::proto::ws {
namespace {

using StringSink = test::CollectingSink;

// Takes `capacity` bytes, then refuses.
class ShortSink final : public buf::Sink {
 public:
  explicit ShortSink(std::size_t capacity) : capacity_(capacity) {}
  using Sink::append;
  bool append(const char*, std::size_t n) override {
    if (n > capacity_) return false;
    capacity_ -= n;
    return true;
  }

 private:
  std::size_t capacity_;
};

// RFC 6455 §1.3 / §4.1.
HandshakeRequest rfc_request() {
  HandshakeRequest r;
  r.method = "GET";
  r.version_minor = 1;
  r.upgrade = "websocket";
  r.connection = "Upgrade";
  r.key = "dGhlIHNhbXBsZSBub25jZQ==";
  r.version = "13";
  r.protocols = "chat, superchat";
  r.origin = "http://example.com";
  return r;
}

std::string response(const HandshakeResult& result) {
  StringSink out;
  EXPECT_TRUE(write_handshake_response(result, out));
  return out.bytes;
}

TEST(WsHandshake, AcceptKeyFromRfc6455) {
  char accept[kAcceptSize + 1];
  ASSERT_TRUE(compute_accept("dGhlIHNhbXBsZSBub25jZQ==", accept));
  EXPECT_STREQ(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  EXPECT_TRUE(verify_accept("dGhlIHNhbXBsZSBub25jZQ==", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
  EXPECT_FALSE(verify_accept("dGhlIHNhbXBsZSBub25jZQ==", "s3pPLMBiTxaQ9kYGzzhZRbK+xOp="));
  EXPECT_FALSE(verify_accept("dGhlIHNhbXBsZSBub25jZQ==", ""));
}

TEST(WsHandshake, RfcExampleUpgradesWithTheServersSubprotocol) {
  const std::string_view protocols[] = {"superchat", "chat"};
  HandshakeOptions options;
  options.subprotocols = protocols;
  const HandshakeResult result = check_handshake(rfc_request(), options);
  ASSERT_EQ(result.http_status, 101);
  EXPECT_EQ(result.subprotocol, "superchat");
  EXPECT_FALSE(result.deflate.enabled);
  EXPECT_EQ(response(result),
            "HTTP/1.1 101 Switching Protocols\r\n"
            "Upgrade: websocket\r\n"
            "Connection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
            "Sec-WebSocket-Protocol: superchat\r\n"
            "\r\n");
}

TEST(WsHandshake, NegotiatesDeflateAndListsItInTheResponse) {
  HandshakeRequest request = rfc_request();
  request.protocols = "";
  request.extensions = "permessage-deflate; client_max_window_bits";
  const HandshakeResult result = check_handshake(request, {});
  ASSERT_EQ(result.http_status, 101);
  EXPECT_TRUE(result.deflate.enabled);
  EXPECT_EQ(response(result),
            "HTTP/1.1 101 Switching Protocols\r\n"
            "Upgrade: websocket\r\n"
            "Connection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover\r\n"
            "\r\n");

  HandshakeOptions no_deflate;
  no_deflate.deflate_enabled = false;
  EXPECT_FALSE(check_handshake(request, no_deflate).deflate.enabled);
}

TEST(WsHandshake, HeaderListsAreMatchedByToken) {
  HandshakeRequest request = rfc_request();
  request.upgrade = "h2c, WebSocket";
  request.connection = "keep-alive, Upgrade";
  EXPECT_EQ(check_handshake(request, {}).http_status, 101);
  request.connection = "keep-alive-upgrade";
  EXPECT_EQ(check_handshake(request, {}).http_status, 400);
  request.connection = "upgrade";
  request.upgrade = "websockets";
  EXPECT_EQ(check_handshake(request, {}).http_status, 400);
}

TEST(WsHandshake, BadRequestsGet400) {
  const auto with = [](auto change) {
    HandshakeRequest r = rfc_request();
    change(r);
    return check_handshake(r, {});
  };
  EXPECT_EQ(with([](HandshakeRequest& r) { r.method = "POST"; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.version_minor = 0; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.upgrade = ""; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.connection = "close"; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.key = ""; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.key = "dGhlIHNhbXBsZSBub25jZQ"; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.key = "dGhlIHNhbXBsZSBub25jZR=="; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.key = "dGhlIHNhbXBsZSBub25j*Q=="; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.key = "dGhlIHNhbXBsZSBub25jZQ=A"; }).http_status, 400);
  EXPECT_EQ(with([](HandshakeRequest& r) { r.key = "dGhlIHNhbXBsZSBub25jZWQ="; }).http_status, 400);  // 17 bytes
  EXPECT_STREQ(with([](HandshakeRequest& r) { r.key_fields = 2; }).reason, "Sec-WebSocket-Key given more than once");
  EXPECT_EQ(with([](HandshakeRequest& r) { r.version_fields = 2; }).http_status, 400);
  const HandshakeResult bad = with([](HandshakeRequest& r) { r.method = "POST"; });
  const std::string text = response(bad);
  EXPECT_EQ(text.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << text;
  EXPECT_NE(text.find("Connection: close\r\n"), std::string::npos);
  EXPECT_NE(text.find(bad.reason), std::string::npos);
}

TEST(WsHandshake, WrongVersionGets426WithTheSupportedVersion) {
  HandshakeRequest request = rfc_request();
  for (std::string_view version : {"8", "", "13, 8", "14"}) {
    request.version = version;
    const HandshakeResult result = check_handshake(request, {});
    ASSERT_EQ(result.http_status, 426) << version;
    const std::string text = response(result);
    EXPECT_EQ(text.rfind("HTTP/1.1 426 Upgrade Required\r\n", 0), 0u);
    EXPECT_NE(text.find("\r\nSec-WebSocket-Version: 13\r\n"), std::string::npos);
  }
}

TEST(WsHandshake, OriginAllowList) {
  const std::string_view allowed[] = {"https://app.example", "http://example.com"};
  HandshakeOptions options;
  options.allowed_origins = allowed;
  HandshakeRequest request = rfc_request();
  EXPECT_EQ(check_handshake(request, options).http_status, 101);
  request.origin = "HTTP://EXAMPLE.COM";
  EXPECT_EQ(check_handshake(request, options).http_status, 101);
  request.origin = "";
  EXPECT_EQ(check_handshake(request, options).http_status, 101);
  request.origin = "http://evil.example";
  const HandshakeResult refused = check_handshake(request, options);
  EXPECT_EQ(refused.http_status, 403);
  EXPECT_EQ(response(refused).rfind("HTTP/1.1 403 Forbidden\r\n", 0), 0u);
  EXPECT_EQ(check_handshake(request, {}).http_status, 101);
}

TEST(WsHandshake, NoCommonSubprotocolMeansNoProtocolHeader) {
  const std::string_view protocols[] = {"mqtt"};
  HandshakeOptions options;
  options.subprotocols = protocols;
  const HandshakeResult result = check_handshake(rfc_request(), options);
  ASSERT_EQ(result.http_status, 101);
  EXPECT_TRUE(result.subprotocol.empty());
  EXPECT_EQ(response(result).find("Sec-WebSocket-Protocol"), std::string::npos);

  const std::string_view upper[] = {"CHAT"};
  options.subprotocols = upper;
  EXPECT_TRUE(check_handshake(rfc_request(), options).subprotocol.empty());
}

TEST(WsHandshake, ResponseWriterReportsAFullSink) {
  const HandshakeResult result = check_handshake(rfc_request(), {});
  const std::size_t full = response(result).size();
  ShortSink fits(full);
  EXPECT_TRUE(write_handshake_response(result, fits));
  ShortSink short_by_one(full - 1);
  EXPECT_FALSE(write_handshake_response(result, short_by_one));
}

TEST(WsHandshake, ClientKeysAreFreshAndAcceptedByTheServerCheck) {
  char a[kKeySize + 1];
  char b[kKeySize + 1];
  ASSERT_TRUE(make_client_key(a));
  ASSERT_TRUE(make_client_key(b));
  EXPECT_EQ(std::string_view(a).size(), kKeySize);
  EXPECT_STRNE(a, b);
  HandshakeRequest request = rfc_request();
  request.key = a;
  const HandshakeResult result = check_handshake(request, {});
  ASSERT_EQ(result.http_status, 101);
  EXPECT_TRUE(verify_accept(a, result.accept));
  EXPECT_FALSE(verify_accept(b, result.accept));
}

// A list field may come on several lines, which mean what one line joined
// by ", " means: a client (or a proxy on its way) that writes "Connection:
// keep-alive" and "Connection: Upgrade" asks for an upgrade.
TEST(WsHandshake, AListFieldSplitOverSeveralLinesIsReadWhole) {
  const http1::Header headers[] = {{"Host", "example.com"},
                                   {"Upgrade", "h2c"},
                                   {"upgrade", "websocket"},
                                   {"Connection", "keep-alive"},
                                   {"Connection", "Upgrade"},
                                   {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
                                   {"Sec-WebSocket-Version", "13"},
                                   {"Sec-WebSocket-Protocol", "other"},
                                   {"Sec-WebSocket-Protocol", "chat"},
                                   {"Sec-WebSocket-Extensions", "x-webkit-deflate-frame"},
                                   {"Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits"}};
  http1::Request request;
  request.method = http1::Method::get;
  request.method_text = "GET";
  request.headers = headers;
  const std::string_view protocols[] = {"chat"};
  HandshakeOptions options;
  options.subprotocols = protocols;
  const HandshakeResult result = check_handshake(handshake_request(request), options);
  ASSERT_EQ(result.http_status, 101) << result.reason;
  EXPECT_EQ(result.subprotocol, "chat");

  std::vector<std::string_view> lines;
  for (std::string_view line : request.list("connection")) lines.push_back(line);
  EXPECT_EQ(lines, (std::vector<std::string_view>{"keep-alive", "Upgrade"}));
  const http1::FieldLines absent = request.list("Sec-WebSocket-Accept");
  EXPECT_EQ(absent.begin(), absent.end());
}

// The permessage-deflate offer on a second line is taken, the unknown
// extension on the first passed over.
TEST(WsHandshake, ADeflateOfferOnASecondLineIsTaken) {
  const http1::Header headers[] = {{"Upgrade", "websocket"},
                                   {"Connection", "Upgrade"},
                                   {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
                                   {"Sec-WebSocket-Version", "13"},
                                   {"Sec-WebSocket-Extensions", "x-webkit-deflate-frame"},
                                   {"Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits"}};
  http1::Request request;
  request.method_text = "GET";
  request.headers = headers;
  const HandshakeResult result = check_handshake(handshake_request(request), {});
  ASSERT_EQ(result.http_status, 101) << result.reason;
  EXPECT_TRUE(result.deflate.enabled);
}

TEST(WsHandshake, ARequestsKeyOrVersionTwiceIsCountedAndRefused) {
  const http1::Header headers[] = {{"Upgrade", "websocket"},
                                   {"Connection", "Upgrade"},
                                   {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
                                   {"Sec-WebSocket-Key", "AAAAAAAAAAAAAAAAAAAAAA=="},
                                   {"Sec-WebSocket-Version", "13"}};
  http1::Request request;
  request.method_text = "GET";
  request.headers = headers;
  const HandshakeRequest fields = handshake_request(request);
  EXPECT_EQ(fields.key_fields, 2U);
  EXPECT_EQ(fields.version_fields, 1U);
  EXPECT_STREQ(check_handshake(fields, {}).reason, "Sec-WebSocket-Key given more than once");
}

// RFC 8441: an extended CONNECT carries no key and no Upgrade; the stream
// is accepted with 200 and the same choices as an HTTP/1.1 upgrade.
ExtendedConnectRequest extended_connect() {
  return {.method = "CONNECT",
          .protocol = "websocket",
          .version = "13",
          .protocols = "chat, superchat",
          .extensions = "permessage-deflate",
          .origin = "http://example.com"};
}

TEST(WsHandshake, AnExtendedConnectIsAcceptedWith200AndTheServersChoices) {
  const std::string_view protocols[] = {"superchat", "chat"};
  HandshakeOptions options;
  options.subprotocols = protocols;
  const HandshakeResult result = check_extended_connect(extended_connect(), options);
  EXPECT_EQ(result.http_status, 200);
  EXPECT_EQ(result.subprotocol, "superchat");
  EXPECT_TRUE(result.deflate.enabled);
  EXPECT_STREQ(result.accept, "");
}

TEST(WsHandshake, AnExtendedConnectNamesItsProtocolInAnyCase) {
  ExtendedConnectRequest request = extended_connect();
  request.protocol = "WebSocket";
  EXPECT_EQ(check_extended_connect(request, {}).http_status, 200);
}

TEST(WsHandshake, AnExtendedConnectThatIsNotAWebSocketOrNotVersion13IsRefused) {
  ExtendedConnectRequest other = extended_connect();
  other.protocol = "webtransport";
  EXPECT_EQ(check_extended_connect(other, {}).http_status, 400);
  ExtendedConnectRequest plain = extended_connect();
  plain.protocol = {};
  EXPECT_EQ(check_extended_connect(plain, {}).http_status, 400);
  ExtendedConnectRequest old = extended_connect();
  old.version = "8";
  EXPECT_EQ(check_extended_connect(old, {}).http_status, 426);
  ExtendedConnectRequest twice = extended_connect();
  twice.version_fields = 2;
  EXPECT_STREQ(check_extended_connect(twice, {}).reason, "Sec-WebSocket-Version given more than once");
  const std::string_view allowed[] = {"https://app.example"};
  HandshakeOptions options;
  options.allowed_origins = allowed;
  EXPECT_EQ(check_extended_connect(extended_connect(), options).http_status, 403);
}

}  // namespace
}  // namespace sluice::proto::ws
