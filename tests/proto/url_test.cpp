#include "proto/url.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace sluice::proto::url {
namespace {

// Decodes into a buffer of exactly `cap` bytes; "<error>" on -1.
std::string decode(std::string_view in, bool plus_as_space, std::size_t cap = 64) {
  std::vector<char> out(cap);
  const long n = percent_decode(in, out.data(), cap, plus_as_space);
  return n < 0 ? "<error>" : std::string(out.data(), static_cast<std::size_t>(n));
}

TEST(PercentDecode, DecodesEscapes) {
  EXPECT_EQ(decode("a%20b%2Fc%2fd", false), "a b/c/d");
  EXPECT_EQ(decode("%00%ff%FF", false), std::string("\0\xff\xff", 3));
  EXPECT_EQ(decode("", false), "");
  EXPECT_EQ(decode("plain", false), "plain");
}

TEST(PercentDecode, TurnsPlusIntoSpaceOnlyWhenAsked) {
  EXPECT_EQ(decode("a+b%2B", true), "a b+");
  EXPECT_EQ(decode("a+b%2B", false), "a+b+");
}

TEST(PercentDecode, RejectsMalformedEscapes) {
  for (const char* in : {"%", "%2", "a%g0", "%0g", "%%20", "abc%"}) {
    EXPECT_EQ(decode(in, false), "<error>") << in;
  }
}

TEST(PercentDecode, RejectsOutputThatDoesNotFit) {
  EXPECT_EQ(decode("abc", false, 3), "abc");
  EXPECT_EQ(decode("abcd", false, 3), "<error>");
  EXPECT_EQ(decode("ab%41", false, 3), "abA");
  EXPECT_EQ(decode("ab%41c", false, 3), "<error>");
  EXPECT_EQ(percent_decode("", nullptr, 0, false), 0);
  EXPECT_EQ(percent_decode("a", nullptr, 0, false), -1);
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs pairs_of(std::string_view query) {
  Pairs out;
  QueryIterator it(query);
  std::string_view key, value;
  while (it.next(key, value)) out.emplace_back(key, value);
  return out;
}

TEST(QueryIterator, YieldsRawPairs) {
  EXPECT_EQ(pairs_of("a=1&b&c=%20"), (Pairs{{"a", "1"}, {"b", ""}, {"c", "%20"}}));
  EXPECT_EQ(pairs_of("x=a=b&=v&k="), (Pairs{{"x", "a=b"}, {"", "v"}, {"k", ""}}));
}

TEST(QueryIterator, SkipsEmptyPairs) {
  EXPECT_EQ(pairs_of(""), Pairs{});
  EXPECT_EQ(pairs_of("&&"), Pairs{});
  EXPECT_EQ(pairs_of("&a=1&&b=2&"), (Pairs{{"a", "1"}, {"b", "2"}}));
}

struct Segments {
  std::vector<std::string> segments;
  bool failed;
  friend bool operator==(const Segments&, const Segments&) = default;
};

Segments segments_of(std::string_view path) {
  Segments out;
  PathIterator it(path);
  std::string_view segment;
  while (it.next(segment)) out.segments.emplace_back(segment);
  out.failed = it.failed();
  return out;
}

TEST(PathIterator, SplitsIntoRawSegments) {
  EXPECT_EQ(segments_of("/sse/news"), (Segments{{"sse", "news"}, false}));
  EXPECT_EQ(segments_of("/a%2Fb/c"), (Segments{{"a%2Fb", "c"}, false}));
  EXPECT_EQ(segments_of("/"), (Segments{{}, false}));
  EXPECT_EQ(segments_of("/a/"), (Segments{{"a"}, false}));
  EXPECT_EQ(segments_of("/.../a.b/.x"), (Segments{{"...", "a.b", ".x"}, false}));
}

TEST(PathIterator, RejectsPathsNotInCanonicalForm) {
  EXPECT_EQ(segments_of(""), (Segments{{}, true}));
  EXPECT_EQ(segments_of("a/b"), (Segments{{}, true}));
  EXPECT_EQ(segments_of("*"), (Segments{{}, true}));
  EXPECT_EQ(segments_of("//a"), (Segments{{}, true}));
  EXPECT_EQ(segments_of("/a//b"), (Segments{{"a"}, true}));
  EXPECT_EQ(segments_of("/a//"), (Segments{{"a"}, true}));
}

TEST(PathIterator, RejectsDotSegmentsHoweverSpelt) {
  for (const char* path :
       {"/.", "/..", "/a/./b", "/a/../b", "/a/..", "/%2e", "/%2E%2e/x", "/.%2e", "/a/%2e./"}) {
    const Segments s = segments_of(path);
    EXPECT_TRUE(s.failed) << path;
    EXPECT_LE(s.segments.size(), 1u) << path;
  }
}

}  // namespace
}  // namespace sluice::proto::url
