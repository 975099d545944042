#include "sse_scanner.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::bench {
namespace {

struct Collect final : SseHandler {
  std::vector<std::string> data;
  std::vector<std::uint64_t> ids;
  int comments = 0;
  void on_event(const SseEvent& e) override {
    data.emplace_back(e.data);
    ids.push_back(e.has_id ? e.id : 0);
  }
  void on_comment(std::string_view) override { ++comments; }
};

const std::string kStream =
    "retry: 2000\n\n"
    "id: 1\ndata: first\n\n"
    ":\n\n"
    "event: tick\nid: 2\ndata: second one\n\n"
    ": dropped 3\n\n"
    "id: 3\ndata:\n\n"
    "data: no id\n\n";

TEST(SseScanner, ReadsEveryEventAtEverySplitPoint) {
  for (std::size_t cut = 0; cut <= kStream.size(); ++cut) {
    SseScanner scanner;
    Collect got;
    ASSERT_EQ(scanner.feed(std::string_view(kStream).substr(0, cut), got), ScanStatus::ok);
    ASSERT_EQ(scanner.feed(std::string_view(kStream).substr(cut), got), ScanStatus::ok);
    ASSERT_EQ(got.data, (std::vector<std::string>{"first", "second one", "", "no id"})) << "cut " << cut;
    EXPECT_EQ(got.ids, (std::vector<std::uint64_t>{1, 2, 3, 0}));
    EXPECT_EQ(got.comments, 2);
  }
}

TEST(SseScanner, ReadsOneByteAtATime) {
  SseScanner scanner;
  Collect got;
  for (char c : kStream) ASSERT_EQ(scanner.feed(std::string_view(&c, 1), got), ScanStatus::ok);
  EXPECT_EQ(got.data.size(), 4u);
}

TEST(SseScanner, RefusesWhatNoBenchServerShouldSend) {
  for (const std::string bad : {"data: a\r\n\r\n", "dta: x\n\n", "id: 12x\ndata: a\n\n", "data: a\ndata: b\n\n"}) {
    SseScanner scanner;
    Collect got;
    EXPECT_EQ(scanner.feed(bad, got), ScanStatus::bad_line) << bad;
    EXPECT_EQ(scanner.feed("data: fine\n\n", got), ScanStatus::bad_line) << "an error sticks";
    EXPECT_TRUE(got.data.empty());
  }
}

TEST(SseScanner, AnEventPastTheLimitFailsTheStream) {
  SseScanner scanner(100);
  Collect got;
  EXPECT_EQ(scanner.feed("data: " + std::string(200, 'x'), got), ScanStatus::event_too_large);
}

TEST(SseScanner, WithoutParsingIdsKeepsAnyIdAsText) {
  struct Texts final : SseHandler {
    std::vector<std::string> ids;
    std::vector<std::string> data;
    int comments = 0;
    void on_event(const SseEvent& e) override {
      ids.emplace_back(e.id_text);
      data.emplace_back(e.data);
      EXPECT_EQ(e.id, 0u);
    }
    void on_comment(std::string_view) override { ++comments; }
  };
  // Nchan's stream: a comment first, ids "TIME:TAG" that are not in order.
  const std::string nchan = ": hi\n\nid: 1796132045:0\ndata: a\n\nid: 1796132046:0\ndata: b\n\ndata: c\n\n";
  SseScanner scanner(1 << 20, false);
  Texts got;
  EXPECT_EQ(scanner.feed(nchan, got), ScanStatus::ok);
  EXPECT_EQ(got.comments, 1);
  EXPECT_EQ(got.data, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(got.ids, (std::vector<std::string>{"1796132045:0", "1796132046:0", ""}));
  SseScanner strict;
  Texts bad;
  EXPECT_EQ(strict.feed("id: not-a-number\ndata: x\n\n", bad), ScanStatus::bad_line);
}

}  // namespace
}  // namespace sluice::bench
