#include "proto/utf8.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace sluice::proto::ws {
namespace {

// A deliberately plain reference: decode each code point, then apply the
// RFC 3629 rules after the fact.
bool reference_valid(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto lead = static_cast<unsigned char>(s[i]);
    const std::size_t len = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    std::uint32_t cp = len == 1 ? lead : lead & (0x7Fu >> len);
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const std::uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

Utf8Status feed(Utf8Validator& v, std::string_view s) { return v.feed(s.data(), s.size()); }

TEST(Utf8, AcceptsBoundaryCodePoints) {
  for (std::string_view s : {"", "plain ascii", "\x7F", "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF",
                             "\xEE\x80\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF",
                             "\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5"}) {
    EXPECT_TRUE(is_valid_utf8(s)) << s;
  }
}

TEST(Utf8, RejectsOverlongsSurrogatesAndBeyondU10FFFF) {
  for (std::string_view s : {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80",
                             "\xF0\x8F\xBF\xBF", "\xED\xA0\x80", "\xED\xBF\xBF", "\xF4\x90\x80\x80",
                             "\xF5\x80\x80\x80", "\xFF", "\x80", "\xE2\x82\x41", "\xE2\x82"}) {
    EXPECT_FALSE(is_valid_utf8(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8, ReportsAnOpenSequenceAsIncompleteUntilItCloses) {
  Utf8Validator v;
  EXPECT_EQ(feed(v, "price: \xE2"), Utf8Status::valid_incomplete);
  EXPECT_EQ(feed(v, "\x82"), Utf8Status::valid_incomplete);
  EXPECT_EQ(feed(v, "\xAC"), Utf8Status::valid_complete);
  EXPECT_EQ(v.status(), Utf8Status::valid_complete);
}

TEST(Utf8, FailsAtTheFirstByteThatCanNeverBeValid) {
  Utf8Validator v;
  EXPECT_EQ(feed(v, "\xF4"), Utf8Status::valid_incomplete);
  EXPECT_EQ(feed(v, "\x90"), Utf8Status::invalid);  // would be > U+10FFFF, whatever follows

  Utf8Validator surrogate;
  EXPECT_EQ(feed(surrogate, "\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5\xED"), Utf8Status::valid_incomplete);
  EXPECT_EQ(feed(surrogate, "\xA0"), Utf8Status::invalid);
}

TEST(Utf8, InvalidIsStickyUntilReset) {
  Utf8Validator v;
  EXPECT_EQ(feed(v, "\xC0"), Utf8Status::invalid);
  EXPECT_EQ(feed(v, "abc"), Utf8Status::invalid);
  EXPECT_EQ(v.status(), Utf8Status::invalid);
  v.reset();
  EXPECT_EQ(feed(v, "abc"), Utf8Status::valid_complete);
}

TEST(Utf8, FindsABadByteAtEveryPositionOfAnAsciiRun) {
  for (std::size_t pos = 0; pos < 40; ++pos) {
    std::string s(40, 'a');
    s[pos] = '\x80';
    EXPECT_FALSE(is_valid_utf8(s)) << pos;
    s[pos] = '\xC3';
    if (pos + 1 < s.size()) s[pos + 1] = '\xA9';
    EXPECT_EQ(is_valid_utf8(s), pos + 1 < s.size()) << pos;
  }
}

TEST(Utf8, MatchesTheReferenceOnEveryTwoByteInput) {
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const char s[2] = {static_cast<char>(a), static_cast<char>(b)};
      ASSERT_EQ(is_valid_utf8({s, 2}), reference_valid({s, 2})) << a << " " << b;
    }
  }
}

TEST(Utf8, MatchesTheReferenceOnEveryThreeAndFourByteLead) {
  for (int a = 0xE0; a < 0x100; ++a) {
    for (int b = 0; b < 256; ++b) {
      for (int c : {0x00, 0x7F, 0x80, 0xBF, 0xC0}) {
        for (int d : {-1, 0x80, 0xBF, 0x41}) {
          std::string s = {static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)};
          if (d >= 0) s += static_cast<char>(d);
          ASSERT_EQ(is_valid_utf8(s), reference_valid(s)) << a << " " << b << " " << c << " " << d;
        }
      }
    }
  }
}

TEST(Utf8, SplittingTheInputAnywhereGivesTheSameAnswer) {
  const std::string text = "a\xC3\xA9z\xE2\x82\xAC\xF0\x9F\x98\x80!";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    Utf8Validator v;
    (void)feed(v, std::string_view(text).substr(0, cut));
    EXPECT_EQ(feed(v, std::string_view(text).substr(cut)), Utf8Status::valid_complete) << cut;
  }
}

}  // namespace
}  // namespace sluice::proto::ws
