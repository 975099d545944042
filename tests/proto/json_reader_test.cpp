#include "proto/json_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::proto::json {
namespace {

// Reads every member of `text`, decoding string values, and collects
// "name=value" lines; answers the reader's error.
struct Walk {
  ReadError error = ReadError::none;
  std::string reason;
  std::vector<std::string> members;
};

Walk walk(std::string_view text, const ReadLimits& limits = {}) {
  std::vector<char> scratch(text.size());
  ObjectReader reader(text, limits, scratch);
  Walk w;
  std::string_view name;
  if (reader.open()) {
    while (reader.next_member(name)) {
      Value v;
      if (!reader.read_value(v, true)) break;
      w.members.push_back(std::string(name) + "=" + std::string(v.kind == ValueKind::string ? v.text : v.source));
    }
    (void)reader.finish();
  }
  w.error = reader.error();
  w.reason = reader.reason();
  return w;
}

ReadError error_of(std::string_view text, const ReadLimits& limits = {}) { return walk(text, limits).error; }

std::string nested(std::size_t levels, char open, char close) {
  return "{\"a\":" + std::string(levels, open) + std::string(levels, close) + "}";
}

TEST(JsonReader, ReadsMembersOfEveryKind) {
  const Walk w = walk(R"( { "s":"text", "n":-1.5e3, "t":true, "f":false, "z":null, "o":{"x":[1,2]}, "a":[] } )");
  ASSERT_EQ(w.error, ReadError::none) << w.reason;
  const std::vector<std::string> expected = {"s=text", "n=-1.5e3", "t=true", "f=false", "z=null",
                                             "o={\"x\":[1,2]}", "a=[]"};
  EXPECT_EQ(w.members, expected);
  EXPECT_EQ(walk("{}").error, ReadError::none);
  EXPECT_EQ(walk(" \t\r\n{ } \n").error, ReadError::none);
}

TEST(JsonReader, StringsWithoutEscapesAreViewsIntoTheText) {
  const std::string text = R"({"plain":"abc","esc":"a\nb"})";
  char scratch[64];
  ObjectReader reader(text, {}, scratch);
  std::string_view name;
  Value v;
  ASSERT_TRUE(reader.open());
  ASSERT_TRUE(reader.next_member(name));
  ASSERT_TRUE(reader.read_value(v, true));
  EXPECT_EQ(v.text.data(), text.data() + 10);
  EXPECT_EQ(v.source, "\"abc\"");
  ASSERT_TRUE(reader.next_member(name));
  ASSERT_TRUE(reader.read_value(v, true));
  EXPECT_EQ(v.text, "a\nb");
  EXPECT_EQ(v.text.data(), scratch);
  EXPECT_EQ(reader.scratch_used(), 3u);
  EXPECT_FALSE(reader.next_member(name));
  EXPECT_TRUE(reader.finish());
}

TEST(JsonReader, DecodesEveryEscapeAndSurrogatePairs) {
  const Walk w = walk(R"({"d":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00\uDBFF\uDFFF\u0000"})");
  ASSERT_EQ(w.error, ReadError::none) << w.reason;
  EXPECT_EQ(w.members[0], std::string("d=a\"b\\c/d\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF") +
                              std::string(1, '\0'));
  // Names are decoded too.
  EXPECT_EQ(walk(R"({"\u006fp":1})").members[0], "op=1");
}

TEST(JsonReader, RefusesBadStrings) {
  for (const std::string_view bad : {
           R"({"a":"\x"})", R"({"a":"\u12"})", R"({"a":"\u12G4"})", R"({"a":"\ud800"})", R"({"a":"\ud800x"})",
           R"({"a":"\ud800\u0041"})", R"({"a":"\udc00"})", R"({"a":"\ud800\ud800"})", "{\"a\":\"tab\there\"}",
           "{\"a\":\"nl\nhere\"}", "{\"a\":\"\x01\"}", "{\"a\":\"\x80\"}", "{\"a\":\"\xc3\"}",
           "{\"a\":\"\xed\xa0\x80\"}",
           "{\"a\":\"\xf8\x88\x80\x80\x80\"}", R"({"a":"unterminated})", R"({"a":"ends in escape\)", "{\"a\\x\":1}",
           "{\"\xff\":1}", R"({"a":"x",'b':1})"}) {
    EXPECT_EQ(error_of(bad), ReadError::syntax) << bad;
  }
}

TEST(JsonReader, NumbersByTheGrammar) {
  for (const std::string_view good : {"0", "-0", "1", "-1", "10", "1.5", "-1.5", "0.0", "1e5", "1E5", "1e+5", "1e-5",
                                      "-0.0e-0", "123456789012345678901234567890", "1.7976931348623157e308"}) {
    const std::string text = "{\"n\":" + std::string(good) + "}";
    const Walk w = walk(text);
    ASSERT_EQ(w.error, ReadError::none) << good << ": " << w.reason;
    EXPECT_EQ(w.members[0], "n=" + std::string(good));
  }
  for (const std::string_view bad : {"01", "-", "-a", "1.", ".5", "+1", "1e", "1e+", "1E-", "0x1", "1.2.3", "--1",
                                     "1-2", "Infinity", "-Infinity", "NaN", "00", "1.e5", "0e", "-01"}) {
    const std::string text = "{\"n\":" + std::string(bad) + "}";
    EXPECT_EQ(error_of(text), ReadError::syntax) << bad;
  }
}

TEST(JsonReader, Literals) {
  for (const std::string_view bad : {"tru", "truex", "nul", "nulll", "True", "FALSE", "fals", "t"}) {
    const std::string text = "{\"l\":" + std::string(bad) + "}";
    EXPECT_EQ(error_of(text), ReadError::syntax) << bad;
  }
}

TEST(JsonReader, Structure) {
  for (const std::string_view bad :
       {"{", "{\"a\"", "{\"a\":", "{\"a\":}", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{a:1}",
        "{\"a\":1} x", "{\"a\":1}}", "{\"a\":1}{}", "{\"a\":[1,]}", "{\"a\":[1 2]}", "{\"a\":{\"b\"}}",
        "{\"a\":{\"b\":1,}}", "{\"a\":[}", "{\"a\":{]}", "{\"a\":[1}", "{\"a\":{\"b\":1]}", "{\"a\":[,1]}",
        "{\"a\":{,}}", "{\"a\":[[]", "{\"a\":1,,\"b\":2}", "{\"a\":\x01}"}) {
    EXPECT_EQ(error_of(bad), ReadError::syntax) << bad;
  }
  EXPECT_EQ(error_of(std::string("{\"a\":1}\0", 8)), ReadError::syntax);
  for (const std::string_view not_object : {"", "  ", "[]", "\"s\"", "1", "null", "[{}]", "x"}) {
    EXPECT_EQ(error_of(not_object), ReadError::not_object) << not_object;
  }
  const Walk w = walk(" {\"a\" : { \"b\" : [ 1 , { \"c\" : [ ] } , \"x\" ] } , \"d\" : 2 } ");
  ASSERT_EQ(w.error, ReadError::none) << w.reason;
  EXPECT_EQ(w.members.back(), "d=2");
}

TEST(JsonReader, MembersItDoesNotReadAreSkippedButChecked) {
  char scratch[64];
  std::string_view name;
  const std::string good = R"({"skip":{"x":["\u00e9",1e3,{"y":null}]},"keep":"k"})";
  ObjectReader reader(good, {}, scratch);
  ASSERT_TRUE(reader.open());
  ASSERT_TRUE(reader.next_member(name));
  EXPECT_EQ(name, "skip");
  ASSERT_TRUE(reader.next_member(name));
  EXPECT_EQ(name, "keep");
  EXPECT_FALSE(reader.next_member(name));
  EXPECT_TRUE(reader.finish());
  EXPECT_EQ(reader.scratch_used(), 0u);  // skipped strings are not decoded

  const std::string bad = R"({"skip":{"x":["\ud800"]},"keep":"k"})";
  ObjectReader checked(bad, {}, scratch);
  ASSERT_TRUE(checked.open());
  ASSERT_TRUE(checked.next_member(name));
  EXPECT_FALSE(checked.next_member(name));
  EXPECT_EQ(checked.error(), ReadError::syntax);
  EXPECT_STREQ(checked.reason(), "not JSON: a \\u escape that is half a surrogate pair");
}

TEST(JsonReader, DepthLimit) {
  ReadLimits limits;
  limits.max_depth = 16;
  EXPECT_EQ(error_of(nested(15, '[', ']'), limits), ReadError::none);  // the object is level 1
  EXPECT_EQ(error_of(nested(16, '[', ']'), limits), ReadError::too_deep);
  EXPECT_EQ(error_of(nested(15, '{', '}'), limits), ReadError::syntax);  // {{ is not JSON, but deep enough
  std::string objects = "{\"a\":";
  for (int i = 0; i < 15; ++i) objects += "{\"a\":";
  EXPECT_EQ(error_of(objects + "1" + std::string(16, '}'), limits), ReadError::none);  // 16 levels of objects
  EXPECT_EQ(error_of(objects + "{\"a\":1" + std::string(17, '}'), limits), ReadError::too_deep);
  limits.max_depth = 1;
  EXPECT_EQ(error_of("{\"a\":1}", limits), ReadError::none);
  EXPECT_EQ(error_of("{\"a\":[]}", limits), ReadError::too_deep);
  limits.max_depth = 1000;  // clamped to kMaxDepth
  EXPECT_EQ(error_of(nested(kMaxDepth - 1, '[', ']'), limits), ReadError::none);
  EXPECT_EQ(error_of(nested(kMaxDepth, '[', ']'), limits), ReadError::too_deep);
}

TEST(JsonReader, HundredThousandOpenBracketsStopAtTheLimit) {
  const std::string text = nested(100'000, '[', ']');
  const Walk w = walk(text);
  EXPECT_EQ(w.error, ReadError::too_deep);
  EXPECT_EQ(w.reason, "values nested deeper than allowed");
}

TEST(JsonReader, StringLimitCountsBytesAsWritten) {
  ReadLimits limits;
  limits.max_string_bytes = 8;
  EXPECT_EQ(error_of(R"({"s":"12345678"})", limits), ReadError::none);
  EXPECT_EQ(error_of(R"({"s":"123456789"})", limits), ReadError::string_too_long);
  EXPECT_EQ(error_of(R"({"s":"1234567\n"})", limits), ReadError::string_too_long);  // the escape is 2 bytes
  EXPECT_EQ(error_of(R"({"s":"123456\n"})", limits), ReadError::none);
  EXPECT_EQ(error_of("{\"s\":\"123456\xe2\x82\xac\"}", limits), ReadError::string_too_long);  // crosses the limit
  EXPECT_EQ(error_of("{\"s\":\"12345\xe2\x82\xac\"}", limits), ReadError::none);
  EXPECT_EQ(error_of(R"({"s":"1234567\u0041"})", limits), ReadError::string_too_long);
  EXPECT_EQ(error_of(R"({"123456789":1})", limits), ReadError::string_too_long);        // names too
  EXPECT_EQ(error_of(R"({"s":["123456789"]})", limits), ReadError::string_too_long);    // and skipped ones
  EXPECT_EQ(error_of(R"({"s":"12345)", limits), ReadError::syntax);                      // short, unterminated
}

TEST(JsonReader, AMillionCharacterString) {
  const std::string text = "{\"s\":\"" + std::string(1'000'000, 'x') + "\"}";
  ReadLimits limits;
  limits.max_string_bytes = 4096;
  EXPECT_EQ(error_of(text, limits), ReadError::string_too_long);
  limits.max_string_bytes = 1'000'000;
  const Walk w = walk(text, limits);
  ASSERT_EQ(w.error, ReadError::none);
  EXPECT_EQ(w.members[0].size(), 2 + 1'000'000u);
}

TEST(JsonReader, NumberLimit) {
  ReadLimits limits;
  limits.max_number_chars = 4;
  EXPECT_EQ(error_of(R"({"n":-1.5})", limits), ReadError::none);
  EXPECT_EQ(error_of(R"({"n":-1.55})", limits), ReadError::number_too_long);
  EXPECT_EQ(error_of(R"({"n":[12345]})", limits), ReadError::number_too_long);
  EXPECT_EQ(error_of("{\"n\":" + std::string(1'000'000, '9') + "}", limits), ReadError::number_too_long);
}

TEST(JsonReader, MemberLimitPerObjectAndArray) {
  ReadLimits limits;
  limits.max_members = 3;
  EXPECT_EQ(error_of(R"({"a":1,"b":2,"c":3})", limits), ReadError::none);
  EXPECT_EQ(error_of(R"({"a":1,"b":2,"c":3,"d":4})", limits), ReadError::too_many_members);
  EXPECT_EQ(error_of(R"({"a":[1,2,3]})", limits), ReadError::none);
  EXPECT_EQ(error_of(R"({"a":[1,2,3,4]})", limits), ReadError::too_many_members);
  EXPECT_EQ(error_of(R"({"a":{"x":1,"y":2,"z":3,"w":4}})", limits), ReadError::too_many_members);
  // Counted per container: three levels of three each are fine.
  EXPECT_EQ(error_of(R"({"a":[1,[1,2,3],{"x":[1,2,3],"y":1,"z":1}],"b":1,"c":1})", limits), ReadError::none);
}

TEST(JsonReader, ASmallScratchIsNoRoomNotAnOverrun) {
  const std::string text = R"({"s":"\n\n\n\n\n"})";
  char scratch[4];
  ObjectReader reader(text, {}, scratch);
  std::string_view name;
  Value v;
  ASSERT_TRUE(reader.open());
  ASSERT_TRUE(reader.next_member(name));
  EXPECT_FALSE(reader.read_value(v, true));
  EXPECT_EQ(reader.error(), ReadError::no_room);
}

TEST(JsonReader, ContainerValuesAreToldWithoutBeingRead) {
  char scratch[8];
  const std::string text = R"({"a": [1], "b": 2})";
  ObjectReader reader(text, {}, scratch);
  std::string_view name;
  ASSERT_TRUE(reader.open());
  ASSERT_TRUE(reader.next_member(name));
  EXPECT_TRUE(reader.value_is_container());
  ASSERT_TRUE(reader.next_member(name));
  EXPECT_FALSE(reader.value_is_container());
  EXPECT_FALSE(reader.next_member(name));
  EXPECT_TRUE(reader.finish());
}

}  // namespace
}  // namespace sluice::proto::json
