// Conformance group 7 (Autobahn|Testsuite): the closing handshake. A valid
// close is answered with the same code (1000 for an empty one) and nothing
// after it is processed; a malformed close (one byte, a code that may not be
// sent, a reason that is not UTF-8 or makes the payload too long) fails the
// connection.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

const std::string kKosme = "\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5";  // κόσμε

WireFrame close_frame(int code, std::string_view reason = {}) {
  return {.opcode = kClose, .payload = close_payload(static_cast<std::uint16_t>(code), reason)};
}

Exchange answered(const WireFrame& close, int code) { return script({close}, {closing(code)}); }

std::vector<WsCase> handshake_cases() {
  const WireFrame late_ping{.opcode = kPing, .payload = "late"};
  return {
      // 7.1.1 and 7.1.6 in one write: the echo is queued when the close
      // arrives, and must still leave before the answering close (§5.5.1:
      // no data frame may follow a close frame).
      {"after_a_message",
       [] {
         return chopped(script({{.opcode = kText, .payload = "Hello"}, close_frame(1000)},
                               {message(kText, "Hello"), closing(1000)}),
                        4096);
       }},
      {"twice",
       [] {
         return script({close_frame(1000), close_frame(1000)}, {closing(1000)});
       }},
      {"then_ping",
       [late_ping] {
         return script({close_frame(1000), late_ping}, {closing(1000)});
       }},
      {"then_text",
       [] {
         return script({close_frame(1000), {.opcode = kText, .payload = "late"}}, {closing(1000)});
       }},
      {"inside_a_fragmented_message_then_its_end",
       [] {
         return script({{.opcode = kText, .payload = "frag", .fin = false},
                        close_frame(1000),
                        {.opcode = kContinuation, .payload = "ment"}},
                       {closing(1000)});
       }},
      {"after_256k_message_then_ping",
       [late_ping] {
         const std::string big(256 * 1024, 'B');
         return chopped(script({{.opcode = kText, .payload = big}, close_frame(1000), late_ping},
                               {message(kText, big), closing(1000)}),
                        1 << 20);
       }},
      {"empty_payload", [] { return answered({.opcode = kClose}, 1000); }},
      {"one_byte_payload", [] { return answered({.opcode = kClose, .payload = "\x03"}, 1002); }},
      {"code_only", [] { return answered(close_frame(1000), 1000); }},
      {"code_and_reason", [] { return answered(close_frame(1001, "Hello World!"), 1001); }},
      {"reason_of_123_bytes", [] { return answered(close_frame(1000, std::string(123, 'r')), 1000); }},
      {"reason_of_124_bytes", [] { return answered(close_frame(1000, std::string(124, 'r')), 1002); }},
      {"reason_utf8", [] { return answered(close_frame(1000, kKosme), 1000); }},
      {"reason_not_utf8", [] { return answered(close_frame(1000, kKosme + "\xED\xA0\x80"), 1007); }},
  };
}

// 7.7: codes a peer may send are echoed. 1012-1014 were registered with
// IANA after RFC 6455, and are accepted.
std::vector<WsCase> valid_code_cases() {
  std::vector<WsCase> cases;
  for (const int code :
       {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999}) {
    cases.push_back({"code_" + std::to_string(code), [code] { return answered(close_frame(code, "bye"), code); }});
  }
  return cases;
}

// 7.9 and 7.13: codes no endpoint may send (1005, 1006 and 1015 are only
// ever reported locally) fail the connection.
std::vector<WsCase> invalid_code_cases() {
  std::vector<WsCase> cases;
  for (const int code : {0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535}) {
    cases.push_back({"code_" + std::to_string(code), [code] { return answered(close_frame(code), 1002); }});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(G7_Close, WsConformance, testing::ValuesIn(handshake_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G7_CloseValidCodes, WsConformance, testing::ValuesIn(valid_code_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G7_CloseInvalidCodes, WsConformance, testing::ValuesIn(invalid_code_cases()), case_name);

}  // namespace
}  // namespace sluice::test::ws
