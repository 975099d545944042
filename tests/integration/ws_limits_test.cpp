// Conformance for the size limits (after Autobahn|Testsuite group 9, which
// sends large messages): a message of exactly ws.max_message bytes is
// echoed, one byte more is refused with 1009, and a length field is judged
// the moment it arrives: a 64-bit length with the top bit set is a
// protocol error (1002), a huge legal one is too big (1009), and neither
// waits for payload that will never come.
#include <gtest/gtest.h>

#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

const std::size_t kHalf = kMaxMessage / 2;

// A frame header declaring `length` bytes, with its mask key and no payload.
Exchange header_only(std::uint8_t opcode, std::uint64_t length, int code) {
  return script({{.opcode = opcode, .length = length}}, {closing(code)});
}

std::vector<WsCase> limit_cases() {
  return {
      {"text_at_the_limit",
       [] {
         const std::string at_limit(kMaxMessage, 'm');
         return script({{.opcode = kText, .payload = at_limit}}, {message(kText, at_limit)});
       }},
      {"binary_at_the_limit_in_2",
       [] {
         const std::string half(kHalf, 'h');
         return script({{.opcode = kBinary, .payload = half, .fin = false}, {.opcode = kContinuation, .payload = half}},
                       {message(kBinary, half + half)});
       }},
      {"text_one_byte_over",
       [] { return script({{.opcode = kText, .payload = std::string(kMaxMessage + 1, 'm')}}, {closing(1009)}); }},
      {"fragments_one_byte_over",
       [] {
         const std::string half(kHalf, 'h');
         return script(
             {{.opcode = kBinary, .payload = half, .fin = false}, {.opcode = kContinuation, .payload = half + "!"}},
             {closing(1009)});
       }},
      {"header_one_byte_over", [] { return header_only(kText, kMaxMessage + 1, 1009); }},
      {"header_4GiB", [] { return header_only(kBinary, std::uint64_t{1} << 32, 1009); }},
      {"header_2_pow_62", [] { return header_only(kBinary, std::uint64_t{1} << 62, 1009); }},
      {"header_2_pow_63_minus_1", [] { return header_only(kBinary, (std::uint64_t{1} << 63) - 1, 1009); }},
      {"header_2_pow_63", [] { return header_only(kBinary, std::uint64_t{1} << 63, 1002); }},
      {"header_2_pow_64_minus_1", [] { return header_only(kText, ~std::uint64_t{0}, 1002); }},
      // The continuation's declared length alone carries the message over.
      {"continuation_header_over",
       [] {
         return script({{.opcode = kText, .payload = std::string(kHalf, 'h'), .fin = false},
                        {.opcode = kContinuation, .length = kMaxMessage - kHalf + 1}},
                       {closing(1009)});
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(G9_Limits, WsConformance, testing::ValuesIn(limit_cases()), case_name);

// The close names the key that bounds a message, not only that one does.
TEST(WsLimits, AMessageOverTheLimitIsClosedNamingTheKey) {
  RunningServer server;
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/pub/limits"));
  const auto max_message = static_cast<std::uint64_t>(server::Config{}.ws.max_message);
  client.send({.opcode = kText, .length = max_message + 1});
  const std::optional<ServerFrame> close = client.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 1009);
  EXPECT_EQ(close->payload.substr(2), "message over ws.max_message");
}

}  // namespace
}  // namespace sluice::test::ws
