#include "proto/sse_parser.hpp"

#include <gtest/gtest.h>

#include "collecting_sink.hpp"

#include <string>
#include <vector>

#include "proto/sse.hpp"
#include "support/feed_all_splits.hpp"

namespace sluice::proto::sse {
namespace {

struct Got {
  std::string id;
  std::string type;
  std::string data;
  friend bool operator==(const Got&, const Got&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Got& g) {
    return os << "{id=" << testing::PrintToString(g.id) << " type=" << g.type
              << " data=" << testing::PrintToString(g.data) << "}";
  }
};

class Collector final : public Handler {
 public:
  void on_event(const ReceivedEvent& e) override {
    events.push_back({std::string(e.id), std::string(e.type), std::string(e.data)});
  }
  void on_retry(std::uint64_t ms) override { retries.push_back(ms); }
  void on_comment(std::string_view text) override { comments.emplace_back(text); }
  std::vector<Got> events;
  std::vector<std::uint64_t> retries;
  std::vector<std::string> comments;
};

struct Outcome {
  std::vector<Got> events;
  std::vector<std::uint64_t> retries;
  ParseStatus status = ParseStatus::ok;
};

Outcome parse(const test::Chunks& chunks, const ParserLimits& limits = {}) {
  Parser parser(limits);
  Collector collector;
  Outcome out;
  for (std::string_view chunk : chunks) out.status = parser.feed(chunk, collector);
  out.events = std::move(collector.events);
  out.retries = std::move(collector.retries);
  return out;
}

void expect_every_split(std::string_view input, const std::vector<Got>& expected) {
  test::for_each_split(input, [&](const test::Chunks& chunks) {
    const Outcome out = parse(chunks);
    ASSERT_EQ(out.status, ParseStatus::ok);
    ASSERT_EQ(out.events, expected) << "input " << testing::PrintToString(std::string(input)) << " in " << chunks.size()
                                    << " chunks";
  });
}

TEST(SseParser, OneEvent) { expect_every_split("data: hello\n\n", {{"", "message", "hello"}}); }

TEST(SseParser, WhatwgStockExampleJoinsDataLinesWithLf) {
  expect_every_split("data: YHOO\ndata: +2\ndata: 10\n\n", {{"", "message", "YHOO\n+2\n10"}});
}

TEST(SseParser, WhatwgExampleWithCommentsIdsAndAnUnfinishedEvent) {
  expect_every_split(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n",
                     {{"1", "message", "first event"}, {"", "message", "second event"}});
}

TEST(SseParser, WhatwgExampleWithEmptyDataLines) {
  expect_every_split("data\n\ndata\ndata\n\ndata:", {{"", "message", ""}, {"", "message", "\n"}});
}

TEST(SseParser, OneLeadingSpaceIsStripped) {
  expect_every_split("data:test\n\ndata: test\n\ndata:  test\n\n",
                     {{"", "message", "test"}, {"", "message", "test"}, {"", "message", " test"}});
}

TEST(SseParser, AcceptsCrlfCrAndLfLineEnds) {
  const std::vector<Got> two{{"", "message", "a\nb"}, {"", "message", "c"}};
  expect_every_split("data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n", two);
  expect_every_split("data: a\rdata: b\r\rdata: c\r\r", two);
  expect_every_split("data: a\ndata: b\r\n\rdata: c\r\n\n", two);
}

TEST(SseParser, CrAtTheEndOfAChunkThenLfStartingTheNext) {
  EXPECT_EQ(parse({"data: a\r", "\ndata: b\r", "\n\r", "\n"}).events, (std::vector<Got>{{"", "message", "a\nb"}}));
  // Two CRs are two line ends, whatever the chunking.
  EXPECT_EQ(parse({"data: a\r", "\r", "data: b\r\r"}).events,
            (std::vector<Got>{{"", "message", "a"}, {"", "message", "b"}}));
}

constexpr std::string_view kBom = "\xEF\xBB\xBF";

std::string after(std::string_view prefix, std::string_view rest) { return std::string(prefix) + std::string(rest); }

TEST(SseParser, SkipsALeadingBomOnly) {
  expect_every_split(after(kBom, "data: x\n\n"), {{"", "message", "x"}});
  // A second BOM is part of the first field name, which is then unknown.
  expect_every_split(after(kBom, after(kBom, "data: x\n\ndata: y\n\n")), {{"", "message", "y"}});
  expect_every_split(after("data: x\n\n", after(kBom, "data: y\n\n")), {{"", "message", "x"}});
}

TEST(SseParser, KeepsBytesThatOnlyBeganLikeABom) {
  expect_every_split(after(kBom.substr(0, 2), "data: x\n\ndata: y\n\n"), {{"", "message", "y"}});
  Parser parser({.max_line = 6, .max_data = 64});
  Collector collector;
  // The two held-back bytes count towards the first line: 2 + 5 > 6.
  EXPECT_EQ(parser.feed(kBom.substr(0, 2), collector), ParseStatus::ok);
  EXPECT_EQ(parser.feed("data:\n", collector), ParseStatus::line_too_long);
}

TEST(SseParser, FieldsWithoutAColonAndValuesWithColons) {
  expect_every_split("data\ndata:a:b\nevent:t:u\n\n", {{"", "t:u", "\na:b"}});
}

TEST(SseParser, IgnoresCommentsUnknownAndMiscasedFields) {
  expect_every_split(":c\nfoo: bar\nData: no\ndata : no\nDATA\ndata: yes\n: more\n\n", {{"", "message", "yes"}});
}

// A comment's text, one leading space off, wherever the bytes are cut.
TEST(SseParser, CommentsAreToldWithTheirTextAtEverySplit) {
  test::for_each_split(":\n: token expired\r\n:  two spaces\ndata: x\n\n", [](const test::Chunks& chunks) {
    Parser parser(ParserLimits{});
    Collector collector;
    for (std::string_view chunk : chunks) ASSERT_EQ(parser.feed(chunk, collector), ParseStatus::ok);
    EXPECT_EQ(collector.comments, (std::vector<std::string>{"", "token expired", " two spaces"}));
    EXPECT_EQ(collector.events.size(), 1u);
  });
}

TEST(SseParser, EventTypeAppliesToOneDispatchOnly) {
  expect_every_split("event: add\ndata: 1\n\ndata: 2\n\nevent: lost\n\ndata: 3\n\n",
                     {{"", "add", "1"}, {"", "message", "2"}, {"", "message", "3"}});
}

TEST(SseParser, IdPersistsUntilChangedAndAnEmptyIdClearsIt) {
  expect_every_split("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\ndata: d\n\n",
                     {{"1", "message", "a"}, {"1", "message", "b"}, {"", "message", "c"}, {"2", "message", "d"}});
}

TEST(SseParser, IgnoresAnIdHoldingNul) {
  constexpr char kInput[] = "id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n";
  expect_every_split(std::string_view(kInput, sizeof kInput - 1), {{"1", "message", "a"}, {"1", "message", "b"}});
}

TEST(SseParser, AnIdWithoutDataUpdatesTheLastIdButDispatchesNothing) {
  Parser parser;
  Collector collector;
  ASSERT_EQ(parser.feed("id: 5\n\n", collector), ParseStatus::ok);
  EXPECT_TRUE(collector.events.empty());
  EXPECT_EQ(parser.last_event_id(), "5");
  ASSERT_EQ(parser.feed("id: 6\ndata: x\n", collector), ParseStatus::ok);
  EXPECT_EQ(parser.last_event_id(), "5");
}

TEST(SseParser, ReportsRetryOnlyWhenAllDigits) {
  const Outcome out =
      parse({"retry: 1500\nretry: 15a\nretry:\nretry: -1\nretry:  7\nretry:0\n"
             "retry: 99999999999999999999999\ndata: x\n\n"});
  EXPECT_EQ(out.retries, (std::vector<std::uint64_t>{1500, 0, UINT64_MAX}));
  EXPECT_EQ(out.events.size(), 1u);
}

TEST(SseParser, RetryAtEverySplit) {
  test::for_each_split("retry: 3000\r\n", [](const test::Chunks& chunks) {
    EXPECT_EQ(parse(chunks).retries, (std::vector<std::uint64_t>{3000}));
  });
}

TEST(SseParser, LineLimitHoldsWholeOrSplit) {
  const ParserLimits limits{.max_line = 12, .max_data = 1024};
  test::for_each_split("data: 123456\n\n",
                       [&](const test::Chunks& chunks) { EXPECT_EQ(parse(chunks, limits).events.size(), 1u); });
  test::for_each_split("data: 1234567\n\n", [&](const test::Chunks& chunks) {
    const Outcome out = parse(chunks, limits);
    EXPECT_EQ(out.status, ParseStatus::line_too_long);
    EXPECT_TRUE(out.events.empty());
  });
}

TEST(SseParser, AnEndlessLineFailsInsteadOfGrowing) {
  Parser parser({.max_line = 1024, .max_data = 4096});
  Collector collector;
  const std::string chunk(100, 'x');
  ParseStatus status = ParseStatus::ok;
  int fed = 0;
  while (status == ParseStatus::ok && fed < 1000) {
    status = parser.feed(chunk, collector);
    ++fed;
  }
  EXPECT_EQ(status, ParseStatus::line_too_long);
  EXPECT_EQ(fed, 11);
}

TEST(SseParser, DataLimitCountsTheJoiningLineFeeds) {
  const ParserLimits limits{.max_line = 64, .max_data = 10};
  // "12345678\n9" is 10 bytes as dispatched, the limit; "12345678\n90" is 11.
  EXPECT_EQ(parse({"data: 12345678\ndata\n\n"}, limits).events.size(), 1u);
  EXPECT_EQ(parse({"data: 12345678\ndata: 9\n\n"}, limits).events.size(), 1u);
  EXPECT_EQ(parse({"data: 1234567890\n\n"}, limits).events.size(), 1u);
  EXPECT_EQ(parse({"data: 12345678\ndata: 90\n\n"}, limits).status, ParseStatus::data_too_long);
  EXPECT_EQ(parse({"data: 12345678901\n\n"}, limits).status, ParseStatus::data_too_long);
}

TEST(SseParser, ErrorsAreStickyUntilReset) {
  Parser parser({.max_line = 8, .max_data = 64});
  Collector collector;
  EXPECT_EQ(parser.feed("data: 123456789\n", collector), ParseStatus::line_too_long);
  EXPECT_EQ(parser.feed("data: x\n\n", collector), ParseStatus::line_too_long);
  EXPECT_TRUE(collector.events.empty());
  parser.reset();
  EXPECT_EQ(parser.status(), ParseStatus::ok);
  EXPECT_EQ(parser.feed("data: x\n\n", collector), ParseStatus::ok);
  EXPECT_EQ(collector.events.size(), 1u);
}

TEST(SseParser, ResetKeepsTheLastIdAndDropsThePartialEvent) {
  Parser parser;
  Collector collector;
  ASSERT_EQ(parser.feed("id: 3\ndata: a\n\nid: 4\nevent: e\ndata: partial\ndata: cut mid-li", collector),
            ParseStatus::ok);
  parser.reset();
  ASSERT_EQ(parser.feed(after(kBom, "data: b\n\n"), collector), ParseStatus::ok);
  EXPECT_EQ(collector.events, (std::vector<Got>{{"3", "message", "a"}, {"3", "message", "b"}}));
}

// What a client receives for `data`: every line end becomes LF.
std::string as_received(std::string_view data) {
  std::string out;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] != '\r') {
      out += data[i];
      continue;
    }
    out += '\n';
    if (i + 1 < data.size() && data[i + 1] == '\n') ++i;
  }
  return out;
}

using StringSink = test::CollectingSink;

struct RoundTrip {
  std::string stream;
  std::vector<Got> expected;
};

RoundTrip encode_all(const std::vector<Event>& events) {
  RoundTrip out;
  StringSink sink;
  std::string last_id;
  for (const Event& event : events) {
    EXPECT_EQ(encode(event, sink), EncodeStatus::ok);
    if (!event.id.empty()) last_id = std::string(event.id);
    out.expected.push_back(
        {last_id, event.event.empty() ? "message" : std::string(event.event), as_received(event.data)});
  }
  EXPECT_EQ(encode_comment("keep-alive\r\nsecond line", sink), EncodeStatus::ok);
  out.stream = std::move(sink.bytes);
  return out;
}

TEST(SseRoundTrip, TrickyDataAtEverySplit) {
  const std::string_view tricky[] = {
      "", "\n", "\r", "\r\n", "\n\n", "a\r\nb\rc\nd", "a\n", "a\r", "a\r\n", "\r\r\n\n", " lead", "x:y: z", ":colon",
      "h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x8E\x89"};
  for (std::string_view data : tricky) {
    const RoundTrip rt = encode_all({{.id = "7", .event = "t", .data = data}, {.data = data, .retry_ms = 5}});
    expect_every_split(rt.stream, rt.expected);
  }
}

TEST(SseRoundTrip, ManyEventsInOneStream) {
  std::vector<std::string> payloads;
  for (int i = 0; i < 50; ++i) payloads.push_back("event " + std::to_string(i) + (i % 3 ? "\r\nmore" : "\n"));
  std::vector<Event> events;
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    events.push_back({.id = i % 2 ? std::string_view("odd") : std::string_view(), .data = payloads[i]});
  }
  const RoundTrip rt = encode_all(events);
  test::for_each_split(
      rt.stream, [&](const test::Chunks& chunks) { ASSERT_EQ(parse(chunks).events, rt.expected); }, 0);
}

test::Chunks cut_every(std::string_view s, std::size_t n) {
  test::Chunks chunks;
  for (std::size_t at = 0; at < s.size(); at += n) chunks.push_back(s.substr(at, n));
  return chunks;
}

TEST(SseRoundTrip, HundredKibDataInChunksOfManySizes) {
  std::string data;
  for (std::size_t i = 0; data.size() < 100 * 1024; ++i) {
    data += "line " + std::to_string(i) + (i % 5 == 0 ? "\r\n" : i % 7 == 0 ? "\r" : "\n");
  }
  const RoundTrip rt = encode_all({{.id = "big", .data = data}, {.data = "after"}});
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{4096}, rt.stream.size()}) {
    const Outcome out = parse(cut_every(rt.stream, n));
    ASSERT_EQ(out.status, ParseStatus::ok) << n;
    ASSERT_EQ(out.events, rt.expected) << n;
  }
}

TEST(SseRoundTrip, OneHundredKibSingleLineFitsTheDefaultLimits) {
  const std::string data(100 * 1024, 'z');
  const RoundTrip rt = encode_all({{.data = data}});
  EXPECT_EQ(parse(cut_every(rt.stream, 1500)).events, rt.expected);
  EXPECT_EQ(parse({rt.stream}, {.max_line = 64 * 1024}).status, ParseStatus::line_too_long);
}

}  // namespace
}  // namespace sluice::proto::sse
