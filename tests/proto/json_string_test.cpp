#include "proto/json_string.hpp"

#include <gtest/gtest.h>

#include <string>

#include "buf/fixed_sink.hpp"
#include "buf/string_sink.hpp"

namespace sluice::proto::json {
namespace {

std::string as_json(std::string_view text) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(write_string(sink, text));
  return out;
}

std::size_t sequence(std::string_view bytes) {
  return utf8_sequence_length(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

TEST(JsonString, EscapesWhatJsonRequires) {
  EXPECT_EQ(as_json("plain"), "\"plain\"");
  EXPECT_EQ(as_json(""), "\"\"");
  EXPECT_EQ(as_json("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
  EXPECT_EQ(as_json("l1\nl2\r\tx\b\f"), "\"l1\\nl2\\r\\tx\\b\\f\"");
  EXPECT_EQ(as_json(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(as_json(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
  EXPECT_EQ(as_json("\x7f"), "\"\x7f\"");  // DEL is no control character to JSON
}

TEST(JsonString, Utf8PassesThrough) {
  const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf";
  EXPECT_EQ(as_json(text), "\"" + text + "\"");
}

TEST(JsonString, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(as_json("a\x80z"), "\"a\\ufffdz\"");             // a stray continuation byte
  EXPECT_EQ(as_json("\xc0\x80"), "\"\\ufffd\\ufffd\"");      // overlong NUL
  EXPECT_EQ(as_json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate, U+D800
  EXPECT_EQ(as_json("\xf5\x80\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // past U+10FFFF
  EXPECT_EQ(as_json("ok\xe2\x82"), "\"ok\\ufffd\\ufffd\"");  // cut short at the end
  EXPECT_EQ(as_json("\xe2\x82z\xc3\xa9"), "\"\\ufffd\\ufffdz\xc3\xa9\"");
}

TEST(JsonString, SequenceLengthsAtTheEdges) {
  EXPECT_EQ(sequence("A"), 1u);
  EXPECT_EQ(sequence("\xc2\x80"), 2u);
  EXPECT_EQ(sequence("\xdf\xbf"), 2u);
  EXPECT_EQ(sequence("\xe0\xa0\x80"), 3u);
  EXPECT_EQ(sequence("\xe0\x9f\xbf"), 0u);  // overlong
  EXPECT_EQ(sequence("\xed\x9f\xbf"), 3u);  // U+D7FF
  EXPECT_EQ(sequence("\xed\xa0\x80"), 0u);  // U+D800
  EXPECT_EQ(sequence("\xee\x80\x80"), 3u);  // U+E000
  EXPECT_EQ(sequence("\xf0\x90\x80\x80"), 4u);
  EXPECT_EQ(sequence("\xf0\x8f\xbf\xbf"), 0u);  // overlong
  EXPECT_EQ(sequence("\xf4\x8f\xbf\xbf"), 4u);  // U+10FFFF
  EXPECT_EQ(sequence("\xf4\x90\x80\x80"), 0u);  // U+110000
  EXPECT_EQ(sequence("\xc1\xbf"), 0u);
  EXPECT_EQ(sequence("\xbf"), 0u);
  EXPECT_EQ(sequence("\xe2\x82"), 0u);        // cut short
  EXPECT_EQ(sequence("\xe2\x28\xa1"), 0u);    // interrupted
  EXPECT_EQ(sequence("\xf0\x9f\x98\x28"), 0u);
}

TEST(JsonString, AFullSinkAnswersFalse) {
  char buffer[8];
  buf::FixedSink sink(buffer, sizeof buffer);
  EXPECT_FALSE(write_string(sink, "more than eight bytes"));
  EXPECT_TRUE(sink.failed());
  buf::FixedSink exact(buffer, sizeof buffer);
  EXPECT_TRUE(write_string(exact, "six!!!"));
  EXPECT_EQ(exact.text(), "\"six!!!\"");
}

}  // namespace
}  // namespace sluice::proto::json
