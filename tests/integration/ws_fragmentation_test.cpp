// Conformance group 5 (Autobahn|Testsuite): messages in 2..N fragments,
// control frames between fragments, and the fragmentation rules whose
// breach fails the connection with 1002.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

const std::string kText2 = "fragment1fragment2";

// `whole` cut into `count` fragments (the first `opcode`, the rest
// continuations), with `between` after every fragment but the last.
std::vector<WireFrame> fragments(std::uint8_t opcode, const std::string& whole, std::size_t count,
                                 const std::vector<WireFrame>& between = {}) {
  std::vector<WireFrame> out;
  const std::size_t step = (whole.size() + count - 1) / count;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string part = i * step < whole.size() ? whole.substr(i * step, step) : std::string();
    out.push_back({.opcode = i == 0 ? opcode : kContinuation, .payload = part, .fin = i + 1 == count});
    if (i + 1 < count) out.insert(out.end(), between.begin(), between.end());
  }
  return out;
}

std::string binary_of(std::size_t n) {
  std::string out(n, '\0');
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>(0x80 + i % 128);
  return out;
}

Exchange echo_in(std::uint8_t opcode, const std::string& whole, std::size_t count) {
  return script(fragments(opcode, whole, count), {message(opcode, whole)});
}

Exchange pings_between(const std::string& whole, std::size_t count) {
  std::vector<Reply> replies(count - 1, pong("between"));
  replies.push_back(message(kText, whole));
  return script(fragments(kText, whole, count, {{.opcode = kPing, .payload = "between"}}), replies);
}

std::vector<WsCase> valid_cases() {
  return {
      {"text_in_2", [] { return echo_in(kText, kText2, 2); }},
      {"text_in_2_one_byte_at_a_time", [] { return chopped(echo_in(kText, kText2, 2), 1); }},
      {"binary_in_2", [] { return echo_in(kBinary, binary_of(64), 2); }},
      {"binary_in_10", [] { return echo_in(kBinary, binary_of(1000), 10); }},
      {"text_in_100_of_one_byte", [] { return echo_in(kText, std::string(100, 't'), 100); }},
      {"binary_64k_in_16", [] { return echo_in(kBinary, binary_of(65536), 16); }},
      {"empty_fragments", [] { return echo_in(kText, "", 3); }},
      {"ping_between_2", [] { return pings_between(kText2, 2); }},
      {"ping_between_2_one_byte_at_a_time", [] { return chopped(pings_between(kText2, 2), 1); }},
      {"pings_between_5", [] { return pings_between("abcdefghij", 5); }},
      {"pong_between_ignored",
       [] {
         return script(fragments(kBinary, binary_of(10), 2, {{.opcode = kPong, .payload = "x"}}),
                       {message(kBinary, binary_of(10))});
       }},
      // A close ends the message being assembled; it is answered, not the message.
      {"close_between",
       [] {
         return script(fragments(kText, kText2, 2, {{.opcode = kClose, .payload = close_payload(1000)}}),
                       {closing(1000)});
       }},
  };
}

Exchange fails(const std::vector<WireFrame>& frames) { return script(frames, {closing(1002)}); }

std::vector<WsCase> invalid_cases() {
  const WireFrame orphan{.opcode = kContinuation, .payload = "orphan"};
  return {
      {"fragmented_ping",
       [] {
         return fails({{.opcode = kPing, .payload = "frag", .fin = false}, {.opcode = kContinuation, .payload = "x"}});
       }},
      {"fragmented_pong",
       [] {
         return fails({{.opcode = kPong, .payload = "frag", .fin = false}, {.opcode = kContinuation, .payload = "x"}});
       }},
      {"fragmented_close", [] { return fails({{.opcode = kClose, .payload = close_payload(1000), .fin = false}}); }},
      {"continuation_final_without_start",
       [orphan] {
         return fails({orphan, {.opcode = kPing}});
       }},
      {"continuation_without_start_then_text",
       [orphan] {
         return fails({orphan, {.opcode = kText, .payload = "text"}});
       }},
      {"continuation_not_final_without_start",
       [] { return fails({{.opcode = kContinuation, .payload = "orphan", .fin = false}}); }},
      {"continuation_after_a_finished_message",
       [] {
         return chopped(script({{.opcode = kText, .payload = "one", .fin = false},
                                {.opcode = kContinuation, .payload = "two"},
                                {.opcode = kContinuation, .payload = "three"}},
                               {message(kText, "onetwo"), closing(1002)}),
                        4096);
       }},
      {"new_text_inside_a_fragmented_text",
       [] {
         return fails({{.opcode = kText, .payload = "first", .fin = false}, {.opcode = kText, .payload = "second"}});
       }},
      {"new_binary_inside_a_fragmented_binary",
       [] {
         return fails(
             {{.opcode = kBinary, .payload = "first", .fin = false}, {.opcode = kBinary, .payload = "second"}});
       }},
      {"new_text_inside_a_fragmented_binary",
       [] {
         return fails({{.opcode = kBinary, .payload = "first", .fin = false},
                       {.opcode = kText, .payload = "second", .fin = false}});
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(G5_Fragmentation, WsConformance, testing::ValuesIn(valid_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G5_FragmentationErrors, WsConformance, testing::ValuesIn(invalid_cases()), case_name);

}  // namespace
}  // namespace sluice::test::ws
