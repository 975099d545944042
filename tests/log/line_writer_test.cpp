#include "log/line_writer.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sluice::log {
namespace {

std::string line(Format format, std::size_t size, const std::function<void(LineWriter&)>& fill) {
  std::vector<char> buffer(size);
  LineWriter writer(buffer, format);
  fill(writer);
  return std::string(writer.finish());
}

void some_fields(LineWriter& w) {
  w.field("msg", "stream opened");
  w.field("topic", "news");
  w.field("n", std::uint64_t{42});
  w.field("delta", std::int64_t{-7});
  w.field("ok", true);
  w.field("empty", "");
}

TEST(LogLineWriter, LogfmtQuotesOnlyWhatASplitterWouldMisread) {
  EXPECT_EQ(line(Format::logfmt, 256, some_fields), "msg=\"stream opened\" topic=news n=42 delta=-7 ok=true empty=\"\"\n");
}

TEST(LogLineWriter, JsonWritesOneObjectPerLine) {
  EXPECT_EQ(line(Format::json, 256, some_fields),
            "{\"msg\":\"stream opened\",\"topic\":\"news\",\"n\":42,\"delta\":-7,\"ok\":true,\"empty\":\"\"}\n");
}

// Whatever is shaped like a JWT is cut from every value, where no
// credential is expected too (a user agent, a path, an event's name);
// what only starts like one is kept.
TEST(LogLineWriter, ARunShapedLikeAJwtIsRedactedInAnyField) {
  const auto fields = [](LineWriter& w) {
    w.field("user_agent", "app/1.0 eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln");
    w.field("target", "/sse/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln?lastEventId=eyJa.b.c");
    w.field("kept", "eyJ-no-dots keyJa.b.c eyJa.b");
    w.field("escaped", "/sse/x?lastEventId=Bearer%20eyJa.b.c");
  };
  EXPECT_EQ(line(Format::logfmt, 512, fields),
            "user_agent=\"app/1.0 [redacted]\" target=\"/sse/[redacted]?lastEventId=[redacted]\" "
            "kept=\"eyJ-no-dots keyJa.b.c eyJa.b\" escaped=\"/sse/x?lastEventId=Bearer%20[redacted]\"\n");
}

TEST(LogLineWriter, ValuesCannotForgeFieldsOrLines) {
  const auto hostile = [](LineWriter& w) { w.field("v", std::string_view("a\"b\\c\nlevel=error x=\x01\xff", 22)); };
  EXPECT_EQ(line(Format::logfmt, 256, hostile), "v=\"a\\\"b\\\\c\\x0alevel=error x=\\x01\\xff\"\n");
  EXPECT_EQ(line(Format::json, 256, hostile), "{\"v\":\"a\\\"b\\\\c\\u000alevel=error x=\\u0001\\u00ff\"}\n");
  const auto parsed = nlohmann::json::parse(line(Format::json, 256, hostile));
  EXPECT_EQ(parsed["v"].get<std::string>(), "a\"b\\c\nlevel=error x=\x01\xc3\xbf");  // 0xff read back as U+00FF
}

TEST(LogLineWriter, ALongValueIsCutAndTheLineSaysSo) {
  const std::string long_value(500, 'x');
  const std::string text = line(Format::logfmt, 128, [&](LineWriter& w) {
    w.field("a", "1");
    w.field("v", long_value);
    w.field("after", "never written");
  });
  EXPECT_LE(text.size(), 128u);
  EXPECT_EQ(text.substr(0, 6), "a=1 v=");
  EXPECT_EQ(text.find("after"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 16), " truncated=true\n");
}

// At every buffer size a line fits its buffer, ends with one newline, and
// in JSON still parses, with the flag when something was left out.
TEST(LogLineWriter, EveryBufferSizeGivesAWholeLine) {
  const auto fill = [](LineWriter& w) {
    w.field("msg", "a message with \"quotes\" and\ttabs");
    w.field("count", std::uint64_t{123456789});
    w.field("peer", "127.0.0.1:5555");
    w.field("flag", false);
  };
  const std::string whole = line(Format::json, 512, fill);
  for (std::size_t size = LineWriter::kMinLine; size <= whole.size() + 24; ++size) {
    for (const Format format : {Format::json, Format::logfmt}) {
      const std::string text = line(format, size, fill);
      ASSERT_LE(text.size(), size);
      ASSERT_EQ(text.find('\n'), text.size() - 1) << text;
      if (format == Format::json) {
        const auto parsed = nlohmann::json::parse(text, nullptr, false);
        ASSERT_FALSE(parsed.is_discarded()) << size << ": " << text;
        ASSERT_EQ(parsed.contains("truncated"), !parsed.contains("flag")) << text;  // the last field goes first
      }
    }
  }
}

TEST(LogLineWriter, NoFieldFitsStillMakesAValidLine) {
  const std::string huge_key(LineWriter::kMaxKey + 1, 'k');
  EXPECT_EQ(line(Format::json, 64, [&](LineWriter& w) { w.field(huge_key, "v"); }), "{\"truncated\":true}\n");
  EXPECT_EQ(line(Format::logfmt, 64, [&](LineWriter& w) { w.field(huge_key, "v"); }), "truncated=true\n");
}

}  // namespace
}  // namespace sluice::log
