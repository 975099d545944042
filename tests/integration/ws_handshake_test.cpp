// Conformance for the opening handshake (RFC 6455 §4.2): the refusals and
// their status codes, the origin allow-list, and subprotocol choice. An
// accepted upgrade is checked down to its Sec-WebSocket-Accept and then
// closed cleanly.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

WsCase upgrade_case(std::string name, UpgradeRequest request, int status, std::vector<ExpectedHeader> headers = {}) {
  return {std::move(name), [=] { return Exchange{.upgrade = request, .status = status, .headers = headers}; }};
}

std::vector<WsCase> handshake_cases() {
  return {
      upgrade_case("version_8", {.version = "8"}, 426, {{"Sec-WebSocket-Version", "13"}}),
      upgrade_case("version_missing", {.version = ""}, 426, {{"Sec-WebSocket-Version", "13"}}),
      upgrade_case("key_missing", {.send_key = false}, 400),
      upgrade_case("key_not_base64", {.key = "not a key at all!!!!!!=="}, 400),
      upgrade_case("key_of_15_bytes", {.key = "AAAAAAAAAAAAAAAAAAAA"}, 400),
      upgrade_case("key_of_17_bytes", {.key = "AAAAAAAAAAAAAAAAAAAAAAA="}, 400),
      upgrade_case("key_twice", {.extra_headers = "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n"}, 400),
      upgrade_case("version_twice", {.extra_headers = "Sec-WebSocket-Version: 13\r\n"}, 400),
      // RFC 6455 §1.3's example key, and the accept value it gives there.
      upgrade_case("rfc_sample_key", {.key = "dGhlIHNhbXBsZSBub25jZQ=="}, 101,
                   {{"Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="}, {"Sec-WebSocket-Protocol", ""}}),
      upgrade_case("origin_foreign", {.origin = "https://evil.example"}, 403),
      upgrade_case("origin_allowed", {.origin = std::string(kAllowedOrigin)}, 101),
      upgrade_case("origin_allowed_other_case", {.origin = "HTTPS://App.Example"}, 101),
      upgrade_case("origin_absent", {}, 101),
      upgrade_case("subprotocol_offered", {.protocols = "chat.v1"}, 101, {{"Sec-WebSocket-Protocol", "chat.v1"}}),
      upgrade_case("subprotocol_server_preference", {.protocols = "chat.v1, chat.v2"}, 101,
                   {{"Sec-WebSocket-Protocol", "chat.v2"}}),
      upgrade_case("subprotocol_unknown", {.protocols = "mqtt"}, 101, {{"Sec-WebSocket-Protocol", ""}}),
      upgrade_case("subprotocol_is_case_sensitive", {.protocols = "CHAT.V1"}, 101, {{"Sec-WebSocket-Protocol", ""}}),
      // A list field may come on several lines (RFC 9110 5.3), as one line
      // joined by ", ": the upgrade is read from all of them.
      upgrade_case("upgrade_on_two_lines", {.upgrade = "h2c", .extra_headers = "Upgrade: websocket\r\n"}, 101),
      upgrade_case("connection_on_two_lines", {.connection = "keep-alive", .extra_headers = "Connection: Upgrade\r\n"},
                   101),
      upgrade_case("subprotocols_on_two_lines", {.protocols = "mqtt", .extra_headers = "Sec-WebSocket-Protocol: chat.v1\r\n"},
                   101, {{"Sec-WebSocket-Protocol", "chat.v1"}}),
  };
}

INSTANTIATE_TEST_SUITE_P(G0_Handshake, WsConformance, testing::ValuesIn(handshake_cases()), case_name);

}  // namespace
}  // namespace sluice::test::ws
