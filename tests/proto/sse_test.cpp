#include "proto/sse.hpp"

#include <gtest/gtest.h>

#include <string>

#include "buf/fixed_sink.hpp"
#include "collecting_sink.hpp"
#include "buf/frame.hpp"
#include "proto/sse_parser.hpp"

namespace sluice::proto::sse {
namespace {

using StringSink = test::CollectingSink;

std::string encoded(const Event& event) {
  StringSink sink;
  EXPECT_EQ(encode(event, sink), EncodeStatus::ok);
  EXPECT_EQ(encoded_size(event), sink.bytes.size());
  return sink.bytes;
}

std::string comment(std::string_view text) {
  StringSink sink;
  EXPECT_EQ(encode_comment(text, sink), EncodeStatus::ok);
  return sink.bytes;
}

TEST(SseEncode, WritesEveryFieldInOrder) {
  EXPECT_EQ(encoded({.id = "42", .event = "price", .data = "{\"x\":1}", .retry_ms = 3000}),
            "retry: 3000\nevent: price\nid: 42\ndata: {\"x\":1}\n\n");
}

TEST(SseEncode, OmitsUnsetFields) {
  EXPECT_EQ(encoded({.data = "hello"}), "data: hello\n\n");
  EXPECT_EQ(encoded({.id = "7", .data = "x"}), "id: 7\ndata: x\n\n");
  EXPECT_EQ(encoded({.event = "e", .data = "x"}), "event: e\ndata: x\n\n");
  EXPECT_EQ(encoded({.data = "x", .retry_ms = 0}), "retry: 0\ndata: x\n\n");
}

TEST(SseEncode, EmptyDataStillGetsADataLineSoTheEventIsDispatched) {
  EXPECT_EQ(encoded({}), "data: \n\n");
  EXPECT_EQ(encoded({.id = "1"}), "id: 1\ndata: \n\n");
}

TEST(SseEncode, SplitsDataOnEveryKindOfLineEnd) {
  EXPECT_EQ(encoded({.data = "a\nb"}), "data: a\ndata: b\n\n");
  EXPECT_EQ(encoded({.data = "a\r\nb"}), "data: a\ndata: b\n\n");
  EXPECT_EQ(encoded({.data = "a\rb"}), "data: a\ndata: b\n\n");
  EXPECT_EQ(encoded({.data = "a\n\rb"}), "data: a\ndata: \ndata: b\n\n");
  EXPECT_EQ(encoded({.data = "a\r\rb"}), "data: a\ndata: \ndata: b\n\n");
  EXPECT_EQ(encoded({.data = "a\n\nb"}), "data: a\ndata: \ndata: b\n\n");
}

TEST(SseEncode, TrailingAndLeadingLineEndsBecomeEmptyDataLines) {
  EXPECT_EQ(encoded({.data = "a\n"}), "data: a\ndata: \n\n");
  EXPECT_EQ(encoded({.data = "a\r\n"}), "data: a\ndata: \n\n");
  EXPECT_EQ(encoded({.data = "a\r"}), "data: a\ndata: \n\n");
  EXPECT_EQ(encoded({.data = "\n"}), "data: \ndata: \n\n");
  EXPECT_EQ(encoded({.data = "\na"}), "data: \ndata: a\n\n");
}

TEST(SseEncode, KeepsLeadingSpacesAndColonsInValues) {
  // The client strips exactly one space after the colon: ours.
  EXPECT_EQ(encoded({.id = " x", .event = ":e", .data = " d: "}), "event: :e\nid:  x\ndata:  d: \n\n");
}

TEST(SseEncode, RejectsLineEndsAndNulInFieldsWritingNothing) {
  const Event bad[] = {{.id = "a\nb"},   {.id = "a\rb"},   {.id = std::string_view("a\0b", 3)},
                       {.event = "x\n"}, {.event = "\rx"}, {.event = std::string_view("\0", 1)}};
  for (const Event& event : bad) {
    StringSink sink;
    EXPECT_EQ(encode(event, sink), EncodeStatus::invalid_field);
    EXPECT_TRUE(sink.bytes.empty());
    EXPECT_EQ(encoded_size(event), 0u);
  }
}

TEST(SseEncode, ValidField) {
  EXPECT_TRUE(valid_field(""));
  EXPECT_TRUE(valid_field("topic/1 \xC3\xA9:\t"));
  EXPECT_FALSE(valid_field("a\n"));
  EXPECT_FALSE(valid_field("\r"));
  EXPECT_FALSE(valid_field(std::string_view("1\0", 2)));
}

TEST(SseEncode, ReportsAFullSinkAtEveryCut) {
  const Event event{.id = "9", .event = "tick", .data = "one\ntwo", .retry_ms = 10};
  const std::size_t size = encoded_size(event);
  for (std::size_t capacity = 0; capacity < size; ++capacity) {
    StringSink sink(capacity);
    EXPECT_EQ(encode(event, sink), EncodeStatus::sink_full) << capacity;
  }
  StringSink exact(size);
  EXPECT_EQ(encode(event, exact), EncodeStatus::ok);
}

// A fixed buffer is written through the same encoder on its own type
// (no virtual call per piece): the same bytes, the same refusals.
TEST(SseEncode, AFixedBufferGetsTheSameBytesAndTheSameRefusals) {
  const Event event{.id = "9", .event = "tick", .data = "one\r\ntwo\r", .retry_ms = 10};
  const std::size_t size = encoded_size(event);
  std::string buffer(size, '\0');
  for (std::size_t capacity = 0; capacity < size; ++capacity) {
    buf::FixedSink sink(buffer.data(), capacity);
    EXPECT_EQ(encode(event, sink), EncodeStatus::sink_full) << capacity;
  }
  buf::FixedSink exact(buffer.data(), size);
  ASSERT_EQ(encode(event, exact), EncodeStatus::ok);
  EXPECT_EQ(exact.text(), encoded(event));
  buf::FixedSink refused(buffer.data(), size);
  EXPECT_EQ(encode({.id = "a\nb", .data = "x"}, refused), EncodeStatus::invalid_field);
  EXPECT_TRUE(refused.text().empty());
}

TEST(SseEncode, EncodesIntoPoolFramesAndFailsWhenThePoolIsDry) {
  buf::Pool pool({.block_count = 4, .block_size = 64, .reserve = 1});
  const std::string data(150, 'd');
  buf::FrameBuilder builder(pool, buf::Lane::data);
  ASSERT_EQ(encode({.data = data}, builder), EncodeStatus::ok);
  buf::FrameRef frame = builder.finish();
  EXPECT_EQ(frame.size(), encoded_size({.data = data}));
  buf::FrameBuilder starved(pool, buf::Lane::data);
  EXPECT_EQ(encode({.data = data}, starved), EncodeStatus::sink_full);
}

// Padding is whole comment lines, which a parser takes as no event, up to
// a line more than asked; a pool without room gives none.
TEST(SsePadding, IsWholeCommentLinesAParserSkips) {
  buf::Pool pool({.block_count = 64, .block_size = 64, .reserve = 1});
  for (const std::size_t bytes : {std::size_t{1}, kPaddingLine, kPaddingLine + 1, std::size_t{1000}}) {
    const buf::FrameRef frame = make_padding_frame(pool, buf::Lane::data, bytes);
    ASSERT_TRUE(frame) << bytes;
    std::string text(frame.size(), '\0');
    ASSERT_EQ(frame.copy_to(text.data(), text.size()), text.size());
    EXPECT_GE(text.size(), bytes);
    EXPECT_LT(text.size(), bytes + kPaddingLine);
    ASSERT_EQ(text.size() % kPaddingLine, 0u);
    for (std::size_t at = 0; at < text.size(); at += kPaddingLine) {
      EXPECT_EQ(text[at], ':') << at;
      EXPECT_EQ(text.find('\n', at), at + kPaddingLine - 1) << at;
    }
    struct Counting final : Handler {
      int events = 0;
      void on_event(const ReceivedEvent&) override { ++events; }
    } counting;
    Parser parser;
    EXPECT_EQ(parser.feed(text, counting), ParseStatus::ok);
    EXPECT_EQ(counting.events, 0);
  }
  buf::Pool dry({.block_count = 4, .block_size = 64, .reserve = 1});
  EXPECT_FALSE(make_padding_frame(dry, buf::Lane::data, 1000));
  EXPECT_EQ(dry.free_blocks(), 4u);
}

TEST(SseEncode, SizeOfLargeMultiLineData) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += "line\r\n";
  // 1000 lines plus the empty one after the last CRLF, then the blank line.
  EXPECT_EQ(encoded_size({.data = data}), 1000 * (6 + 4 + 1) + 7 + 1);
}

TEST(SseComment, EmptyTextIsABareColon) { EXPECT_EQ(comment(""), ":\n\n"); }

TEST(SseComment, OneColonLinePerLine) {
  EXPECT_EQ(comment("heartbeat"), ": heartbeat\n\n");
  EXPECT_EQ(comment("dropped 3\nresume from 41"), ": dropped 3\n: resume from 41\n\n");
  EXPECT_EQ(comment("a\r\n\rb\n"), ": a\n:\n: b\n:\n\n");
}

TEST(SseComment, ReportsAFullSink) {
  StringSink sink(3);
  EXPECT_EQ(encode_comment("heartbeat", sink), EncodeStatus::sink_full);
}

}  // namespace
}  // namespace sluice::proto::sse
