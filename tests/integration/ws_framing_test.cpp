// Conformance groups 1, 3 and 4 (Autobahn|Testsuite): messages of every
// length encoding, reserved bits without an extension, reserved opcodes,
// and the masking rule.
#include <gtest/gtest.h>

#include <cstdio>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

std::string text_of(std::size_t n) { return std::string(n, '*'); }

// Every byte value, so that the payload is not UTF-8 and masking is seen
// on every bit.
std::string binary_of(std::size_t n) {
  std::string out(n, '\0');
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>(0xFE - i % 256);
  return out;
}

Exchange echo(std::uint8_t opcode, const std::string& payload) {
  return script({{.opcode = opcode, .payload = payload}}, {message(opcode, payload)});
}

// 1.1 and 1.2: the 7-bit, 16-bit and 64-bit length forms at their edges.
std::vector<WsCase> framing_cases() {
  std::vector<WsCase> cases;
  for (const std::size_t n : {0, 125, 126, 127, 128, 65535, 65536, 1000000}) {
    cases.push_back({"text_" + std::to_string(n), [n] { return echo(kText, text_of(n)); }});
    cases.push_back({"binary_" + std::to_string(n), [n] { return echo(kBinary, binary_of(n)); }});
  }
  // 1.1.8 and 1.2.8: a 64 KiB message arriving in pieces of 997 bytes.
  cases.push_back({"text_65536_in_997_byte_pieces", [] { return chopped(echo(kText, text_of(65536)), 997); }});
  cases.push_back({"binary_65536_in_997_byte_pieces", [] { return chopped(echo(kBinary, binary_of(65536)), 997); }});
  // RFC 6455 §5.1: a server must fail a connection whose frames are unmasked.
  cases.push_back({"unmasked_text",
                   [] { return script({{.opcode = kText, .payload = "hello", .masked = false}}, {closing(1002)}); }});
  cases.push_back({"unmasked_ping",
                   [] { return script({{.opcode = kPing, .payload = "hello", .masked = false}}, {closing(1002)}); }});
  cases.push_back(
      {"unmasked_empty_close", [] { return script({{.opcode = kClose, .masked = false}}, {closing(1002)}); }});
  return cases;
}

// A valid message, then `bad`, then a ping, in one write: the message is
// echoed, the connection fails with `code` (after the echo: no data frame
// may follow a close), and the ping is never answered.
Exchange valid_then(const WireFrame& bad, int code) {
  return chopped(script({{.opcode = kText, .payload = "ok"}, bad, {.opcode = kPing, .payload = "after"}},
                        {message(kText, "ok"), closing(code)}),
                 4096);
}

// 3.1-3.7: RSV bits with no extension negotiated.
std::vector<WsCase> reserved_bit_cases() {
  return {
      {"rsv1_text", [] { return script({{.opcode = kText, .payload = "Hello", .rsv = kRsv1}}, {closing(1002)}); }},
      {"rsv2_text", [] { return valid_then({.opcode = kText, .payload = "Hello", .rsv = kRsv2}, 1002); }},
      {"rsv3_text", [] { return valid_then({.opcode = kText, .payload = "Hello", .rsv = kRsv3}, 1002); }},
      {"rsv1_rsv3_binary",
       [] { return valid_then({.opcode = kBinary, .payload = binary_of(8), .rsv = kRsv1 | kRsv3}, 1002); }},
      {"rsv2_rsv3_ping", [] { return valid_then({.opcode = kPing, .payload = "p", .rsv = kRsv2 | kRsv3}, 1002); }},
      {"rsv1_pong", [] { return valid_then({.opcode = kPong, .rsv = kRsv1}, 1002); }},
      {"all_rsv_close",
       [] {
         return valid_then({.opcode = kClose, .payload = close_payload(1000), .rsv = kRsv1 | kRsv2 | kRsv3}, 1002);
       }},
  };
}

// 4.1 and 4.2: the reserved data opcodes 3-7 and control opcodes B-F, with
// and without a payload.
std::vector<WsCase> opcode_cases() {
  std::vector<WsCase> cases;
  for (const int op : {0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF}) {
    char name[32];
    std::snprintf(name, sizeof name, "reserved_opcode_%X", op);
    cases.push_back({name, [op] {
                       return valid_then({.opcode = static_cast<std::uint8_t>(op), .payload = op % 2 ? "reserved" : ""},
                                         1002);
                     }});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(G1_Framing, WsConformance, testing::ValuesIn(framing_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G3_ReservedBits, WsConformance, testing::ValuesIn(reserved_bit_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G4_Opcodes, WsConformance, testing::ValuesIn(opcode_cases()), case_name);

}  // namespace
}  // namespace sluice::test::ws
