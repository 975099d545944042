#include "json_object.hpp"

#include <gtest/gtest.h>

namespace sluice::client::detail {
namespace {

TEST(JsonObject, ReadsStringsNumbersAndLiterals) {
  JsonObject json;
  ASSERT_TRUE(json.parse(R"( {"topic":"t","dropped":12,"ok":true,"none":null,"neg":-1.5e3} )"));
  EXPECT_EQ(json.get("topic"), "t");
  EXPECT_EQ(json.get("ok"), "true");
  EXPECT_EQ(json.get("none"), "null");
  EXPECT_EQ(json.get("neg"), "-1.5e3");
  EXPECT_EQ(json.get("absent"), "");
  std::uint64_t n = 0;
  EXPECT_TRUE(json.get_u64("dropped", n));
  EXPECT_EQ(n, 12u);
  EXPECT_FALSE(json.get_u64("topic", n));
  EXPECT_FALSE(json.get_u64("neg", n));
}

TEST(JsonObject, NumericStringsCountAsNumbers) {
  JsonObject json;
  ASSERT_TRUE(json.parse(R"({"req":"42"})"));
  std::uint64_t n = 0;
  EXPECT_TRUE(json.get_u64("req", n));
  EXPECT_EQ(n, 42u);
}

TEST(JsonObject, UnescapesEveryEscape) {
  JsonObject json;
  ASSERT_TRUE(json.parse(R"({"d":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00"})"));
  EXPECT_EQ(json.get("d"), "a\"b\\c/d\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(JsonObject, EmptyObjectAndEmptyStrings) {
  JsonObject json;
  EXPECT_TRUE(json.parse("{}"));
  ASSERT_TRUE(json.parse(R"({"":""})"));
  std::string_view v = "x";
  EXPECT_TRUE(json.find("", v));
  EXPECT_EQ(v, "");
}

TEST(JsonObject, RefusesWhatIsNotOneFlatObject) {
  JsonObject json;
  for (const char* bad : {"", "[]", "\"s\"", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\":{}}", "{\"a\":[1]}",
                          "{\"a\":1} x", "{a:1}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}",
                          "{\"a\":\"tab\there\"}", "{\"a\":tru}", "{\"a\":\"unterminated}"}) {
    EXPECT_FALSE(json.parse(bad)) << bad;
    EXPECT_EQ(json.get("a"), "") << bad;
  }
}

TEST(JsonObject, ReparsingReusesTheBuffer) {
  JsonObject json;
  ASSERT_TRUE(json.parse(R"({"a":"first"})"));
  ASSERT_TRUE(json.parse(R"({"b":"second"})"));
  EXPECT_EQ(json.get("a"), "");
  EXPECT_EQ(json.get("b"), "second");
}

TEST(JsonString, EscapesAndRoundTrips) {
  std::string out;
  const std::string text = std::string("q\"b\\n\nc\x01\x1f") + "\xC3\xA9";
  append_json_string(out, text);
  EXPECT_EQ(out, "\"q\\\"b\\\\n\\nc\\u0001\\u001f\xC3\xA9\"");
  JsonObject json;
  ASSERT_TRUE(json.parse("{\"k\":" + out + "}"));
  EXPECT_EQ(json.get("k"), text);
}

}  // namespace
}  // namespace sluice::client::detail
