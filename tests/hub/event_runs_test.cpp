#include "hub/event_runs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::hub {
namespace {

std::string text(const buf::FrameRef& f) {
  std::string out(f.size(), '\0');
  f.copy_to(out.data(), out.size());
  return out;
}

// Events as the hub holds them: an SSE frame and a payload (one byte of
// event-name length, no name, the data) each.
struct EventRunsTest : testing::Test {
  void add(const std::string& sse, const std::string& data) {
    sse_frames.push_back(buf::make_frame(pool, buf::Lane::data, sse));
    payloads.push_back(buf::make_frame(pool, buf::Lane::data, std::string(1, '\0') + data));
  }
  std::vector<EventFrames>& frames() {
    events.clear();
    events.reserve(sse_frames.size());
    for (std::size_t i = 0; i < sse_frames.size(); ++i) {
      events.emplace_back(pool, scratch, "t", EventIdText("ep", 0, 1), sse_frames[i], payloads[i]);
    }
    return events;
  }

  buf::Pool pool{{.block_count = 64, .block_size = 64, .reserve = 2}};
  FrameScratch scratch;
  std::vector<buf::FrameRef> sse_frames;
  std::vector<buf::FrameRef> payloads;
  std::vector<EventFrames> events;
};

TEST_F(EventRunsTest, ARunIsTheEventsBackToBackAcrossBlocks) {
  std::string all;
  for (int i = 0; i < 5; ++i) {
    const std::string sse = "data: event number " + std::to_string(i) + " of five\n\n";
    add(sse, "x");
    all += sse;
  }
  ASSERT_GT(all.size(), pool.block_size());  // the run spans blocks
  EventRuns runs(pool, frames());
  const buf::FrameRef& run = runs.form(WireForm::sse);
  EXPECT_EQ(text(run), all);
  EXPECT_TRUE(runs.form(WireForm::sse) == run);  // built once
}

TEST_F(EventRunsTest, EachWebSocketFormIsBuiltFromTheEventsOwnForm) {
  add("data: a\n\n", "a");
  add("data: bc\n\n", "bc");
  EventRuns runs(pool, frames());
  const std::string expected = text(events[0].form(WireForm::ws_message)) + text(events[1].form(WireForm::ws_message));
  EXPECT_EQ(text(runs.form(WireForm::ws_message)), expected);
  EXPECT_EQ(expected, std::string("\x81\x01" "a" "\x81\x02" "bc", 7));
}

TEST_F(EventRunsTest, ARunOfOneEventIsThatEventsFrameUncopied) {
  add("data: only\n\n", "only");
  const std::size_t free_before = pool.free_blocks();
  EventRuns runs(pool, frames());
  EXPECT_TRUE(runs.form(WireForm::sse) == sse_frames[0]);
  EXPECT_EQ(pool.free_blocks(), free_before);
}

TEST(EventRunsBig, BigEventsMakeNoRun) {
  buf::Pool pool{{.block_count = 16, .block_size = 4096, .reserve = 0}};
  FrameScratch scratch;
  const std::string big = "data: " + std::string(kMaxRunEventBytes, 'x') + "\n\n";
  const buf::FrameRef sse[2] = {buf::make_frame(pool, buf::Lane::data, big),
                                buf::make_frame(pool, buf::Lane::data, big)};
  const buf::FrameRef payload = buf::make_frame(pool, buf::Lane::data, std::string(1, '\0'));
  std::vector<EventFrames> events;
  events.reserve(2);
  for (const buf::FrameRef& f : sse) events.emplace_back(pool, scratch, "t", EventIdText("ep", 0, 1), f, payload);
  EventRuns runs(pool, events);
  EXPECT_FALSE(runs.form(WireForm::sse));
}

TEST_F(EventRunsTest, APoolWithoutRoomForTheRunGivesAnEmptyOneAndKeepsNothing) {
  // 25 events of two blocks each leave 14 free, 12 of them for data; their
  // run of 25 x 48 bytes would need 19.
  for (int i = 0; i < 25; ++i) add("data: " + std::string(40, 'x') + "\n\n", "x");
  EventRuns runs(pool, frames());
  const std::size_t free_before = pool.free_blocks();
  EXPECT_FALSE(runs.form(WireForm::sse));
  EXPECT_EQ(pool.free_blocks(), free_before);
}

}  // namespace
}  // namespace sluice::hub
