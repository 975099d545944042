#include "proto/json_text.hpp"

#include "buf/string_sink.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::proto {
namespace {

std::string json(std::string_view text) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(append_json_string(sink, text));
  return out;
}

TEST(JsonText, EscapesWhatJsonRequires) {
  EXPECT_EQ(json("plain"), "\"plain\"");
  EXPECT_EQ(json(""), "\"\"");
  EXPECT_EQ(json("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json("l1\nl2\r\tx"), "\"l1\\nl2\\r\\tx\"");
  EXPECT_EQ(json(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
  EXPECT_EQ(json("caf\xc3\xa9 \xe2\x82\xac"), "\"caf\xc3\xa9 \xe2\x82\xac\"");
}

}  // namespace
}  // namespace sluice::proto
