// Conformance group 6 (Autobahn|Testsuite): text messages must be UTF-8.
// Valid text is echoed however it is cut into fragments; invalid text
// (overlong forms, surrogates, code points past U+10FFFF, stray or missing
// continuation bytes) fails the connection with 1007, and fails it fast:
// the close arrives while the message is still unfinished, before its last
// fragment (or the rest of its only frame) has been sent.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

const std::string kKosme = "\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5";  // κόσμε

struct Sample {
  const char* name;
  std::string text;
};

const std::vector<Sample> kValid = {
    {"ascii_and_latin", "Hello-\xC2\xB5@\xC3\x9F\xC3\xB6\xC3\xA4\xC3\xBC\xC3\xA0\xC3\xA1-UTF-8!!"},
    {"greek", kKosme},
    {"u0080_first_2_byte", "\xC2\x80"},
    {"u07FF_last_2_byte", "\xDF\xBF"},
    {"u0800_first_3_byte", "\xE0\xA0\x80"},
    {"uD7FF_before_surrogates", "\xED\x9F\xBF"},
    {"uE000_after_surrogates", "\xEE\x80\x80"},
    {"uFFFD_replacement", "\xEF\xBF\xBD"},
    {"uFFFE_noncharacter", "\xEF\xBF\xBE"},
    {"uFFFF_last_3_byte", "\xEF\xBF\xBF"},
    {"u10000_first_4_byte", "\xF0\x90\x80\x80"},
    {"u10FFFF_last", "\xF4\x8F\xBF\xBF"},
};

const std::vector<Sample> kInvalid = {
    {"overlong_2_byte_slash", "\xC0\xAF"},
    {"overlong_3_byte_slash", "\xE0\x80\xAF"},
    {"overlong_4_byte_slash", "\xF0\x80\x80\xAF"},
    {"overlong_2_byte_max", "\xC1\xBF"},
    {"overlong_3_byte_max", "\xE0\x9F\xBF"},
    {"overlong_4_byte_max", "\xF0\x8F\xBF\xBF"},
    {"surrogate_uD800", "\xED\xA0\x80"},
    {"surrogate_uDFFF", "\xED\xBF\xBF"},
    {"surrogate_pair", "\xED\xA0\x80\xED\xB0\x80"},
    {"u110000_past_the_last", "\xF4\x90\x80\x80"},
    {"lead_F5", "\xF5\x80\x80\x80"},
    {"five_byte_form", "\xF8\x88\x80\x80\x80"},
    {"six_byte_form", "\xFC\x84\x80\x80\x80\x80"},
    {"byte_FE", "\xFE"},
    {"byte_FF", "\xFF"},
    {"lone_continuation_80", "\x80"},
    {"lone_continuation_BF", "\xBF"},
    {"lead_then_ascii", "\xC2\x41"},
    {"greek_then_surrogate", kKosme + "\xED\xA0\x80" + "edited"},
    {"truncated_2_byte_at_end", kKosme + "\xCE"},
    {"truncated_3_byte_at_end", "\xE2\x82"},
    {"truncated_4_byte_at_end", "\xF0\x90\x80"},
};

// `text` with each piece of `cut` bytes as one fragment.
std::vector<WireFrame> cut_into(const std::string& text, std::size_t cut) {
  std::vector<WireFrame> out;
  for (std::size_t at = 0; at < text.size(); at += cut) {
    out.push_back({.opcode = out.empty() ? kText : kContinuation,
                   .payload = text.substr(at, cut),
                   .fin = at + cut >= text.size()});
  }
  return out;
}

Exchange echo(const std::vector<WireFrame>& frames, const std::string& text) {
  return script(frames, {message(kText, text)});
}

Exchange fails(const std::vector<WireFrame>& frames) { return script(frames, {closing(1007)}); }

std::vector<WsCase> valid_cases() {
  std::vector<WsCase> cases;
  cases.push_back({"empty", [] { return echo({{.opcode = kText}}, ""); }});
  for (const Sample& s : kValid) {
    cases.push_back({s.name, [text = s.text] { return echo({{.opcode = kText, .payload = text}}, text); }});
  }
  // 6.2.2-6.2.4: a code point cut between fragments is still valid.
  cases.push_back({"greek_cut_inside_a_code_point", [] { return echo(cut_into(kKosme, 3), kKosme); }});
  cases.push_back({"greek_one_byte_per_fragment", [] { return echo(cut_into(kKosme, 1), kKosme); }});
  cases.push_back(
      {"u10000_one_byte_per_fragment", [] { return echo(cut_into("\xF0\x90\x80\x80", 1), "\xF0\x90\x80\x80"); }});
  cases.push_back(
      {"greek_one_byte_per_send", [] { return chopped(echo({{.opcode = kText, .payload = kKosme}}, kKosme), 1); }});
  return cases;
}

std::vector<WsCase> invalid_cases() {
  std::vector<WsCase> cases;
  for (const Sample& s : kInvalid) {
    cases.push_back({s.name, [text = s.text] { return fails({{.opcode = kText, .payload = text}}); }});
    cases.push_back(
        {std::string(s.name) + "_one_byte_per_fragment", [text = s.text] { return fails(cut_into(text, 1)); }});
  }
  return cases;
}

// Nothing after the bad bytes is ever sent, so a server that waited for the
// end of the message would time the case out.
std::vector<WsCase> fail_fast_cases() {
  return {
      {"first_fragment_holds_a_surrogate",
       [] { return fails({{.opcode = kText, .payload = kKosme + "\xED\xA0\x80", .fin = false}}); }},
      {"second_byte_past_u10FFFF", [] { return fails({{.opcode = kText, .payload = "\xF4\x90", .fin = false}}); }},
      {"middle_fragment_holds_C0",
       [] {
         return fails({{.opcode = kText, .payload = "valid", .fin = false},
                       {.opcode = kContinuation, .payload = "\xC0", .fin = false}});
       }},
      {"surrogate_cut_across_fragments",
       [] {
         return fails({{.opcode = kText, .payload = "\xED", .fin = false},
                       {.opcode = kContinuation, .payload = "\xA0\x80", .fin = false}});
       }},
      // One frame that declares 100 bytes and gets 8.
      {"inside_an_unfinished_frame",
       [] { return fails({{.opcode = kText, .payload = "valid\xFF..", .length = 100}}); }},
  };
}

INSTANTIATE_TEST_SUITE_P(G6_Utf8Valid, WsConformance, testing::ValuesIn(valid_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G6_Utf8Invalid, WsConformance, testing::ValuesIn(invalid_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G6_Utf8FailFast, WsConformance, testing::ValuesIn(fail_fast_cases()), case_name);

}  // namespace
}  // namespace sluice::test::ws
