#include "hub/event_runs.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <span>
#include <string>
#include <vector>

namespace sluice::hub {
namespace {

std::string text(const buf::FrameRef& f) {
  std::string out(f.size(), '\0');
  f.copy_to(out.data(), out.size());
  return out;
}

// The drain's EventFrames, made on the first request, as the hub makes
// them; `made` counts the requests that made them.
struct MadeOnRequest final : DrainForms {
  MadeOnRequest(buf::Pool& from, std::span<const KeptEvent> of) : pool(from), events(of) {}
  std::span<EventFrames> frames() override {
    if (frames_made.empty()) {
      ++made;
      frames_made.reserve(events.size());
      for (const KeptEvent& e : events) {
        frames_made.emplace_back(pool, scratch, "t", EventIdText("ep", 0, e.seq), e.sse, e.payload, e.ws.data());
      }
    }
    return frames_made;
  }
  buf::Pool& pool;
  std::span<const KeptEvent> events;
  FrameScratch scratch;
  std::vector<EventFrames> frames_made;
  int made = 0;
};

// Events as the hub keeps them: an SSE frame and a payload (one byte of
// event-name length, no name, the data) each, no WebSocket form.
struct EventRunsTest : testing::Test {
  void add(const std::string& sse, const std::string& data) {
    KeptEvent& event = events.emplace_back();
    event.seq = events.size();
    event.sse = buf::make_frame(pool, buf::Lane::data, sse);
    event.payload = buf::make_frame(pool, buf::Lane::data, std::string(1, '\0') + data);
  }
  MadeOnRequest& forms() { return drains.emplace_back(pool, events); }

  buf::Pool pool{{.block_count = 64, .block_size = 64, .reserve = 2}};
  std::vector<KeptEvent> events;
  std::deque<MadeOnRequest> drains;
};

TEST_F(EventRunsTest, ARunIsTheEventsBackToBackAcrossBlocks) {
  std::string all;
  for (int i = 0; i < 5; ++i) {
    const std::string sse = "data: event number " + std::to_string(i) + " of five\n\n";
    add(sse, "x");
    all += sse;
  }
  ASSERT_GT(all.size(), pool.block_size());  // the run spans blocks
  MadeOnRequest& built = forms();
  EventRuns runs(pool, events, built);
  const buf::FrameRef& run = runs.form(WireForm::sse);
  EXPECT_EQ(text(run), all);
  EXPECT_TRUE(runs.form(WireForm::sse) == run);  // built once
  EXPECT_EQ(built.made, 0) << "every event kept its SSE form: no EventFrames needed";
}

TEST_F(EventRunsTest, EachWebSocketFormIsBuiltFromTheEventsOwnForm) {
  add("data: a\n\n", "a");
  add("data: bc\n\n", "bc");
  MadeOnRequest& built = forms();
  EventRuns runs(pool, events, built);
  const std::string run = text(runs.form(WireForm::ws_message));
  EXPECT_EQ(built.made, 1) << "no event kept a WebSocket form";
  const std::string expected =
      text(built.frames()[0].form(WireForm::ws_message)) + text(built.frames()[1].form(WireForm::ws_message));
  EXPECT_EQ(run, expected);
  EXPECT_EQ(expected, std::string("\x81\x01" "a" "\x81\x02" "bc", 7));
}

// A form kept with some events and not others: the kept ones are read as
// they are (this one a binary message, which no build of this text makes),
// the rest built; the run is all of them in order.
TEST_F(EventRunsTest, KeptAndBuiltFormsMakeOneRunInOrder) {
  add("data: a\n\n", "a");
  add("data: bc\n\n", "bc");
  const std::string kept("\x82\x02" "bc", 4);
  events[1].ws[ws_index(WireForm::ws_message)] = buf::make_frame(pool, buf::Lane::data, kept);
  MadeOnRequest& built = forms();
  EventRuns runs(pool, events, built);
  EXPECT_EQ(text(runs.form(WireForm::ws_message)), std::string("\x81\x01" "a", 3) + kept);
  EXPECT_EQ(built.made, 1);
}

// An event whose SSE form nobody built has it built from its payload,
// with its id, into the run beside the kept ones.
TEST_F(EventRunsTest, AnSseFormNobodyBuiltIsBuiltIntoTheRun) {
  add("data: a\n\n", "a");
  add("data: bc\n\n", "bc");
  events[0].sse.reset();
  MadeOnRequest& built = forms();
  EventRuns runs(pool, events, built);
  EXPECT_EQ(text(runs.form(WireForm::sse)), "id: ep:1\ndata: a\n\ndata: bc\n\n");
  EXPECT_EQ(built.made, 1);
}

TEST_F(EventRunsTest, ARunOfOneEventIsThatEventsFrameUncopied) {
  add("data: only\n\n", "only");
  const std::size_t free_before = pool.free_blocks();
  MadeOnRequest& built = forms();
  EventRuns runs(pool, events, built);
  EXPECT_TRUE(runs.form(WireForm::sse) == events[0].sse);
  EXPECT_EQ(built.made, 0);
  EXPECT_EQ(pool.free_blocks(), free_before);
}

TEST(EventRunsBig, BigEventsMakeNoRun) {
  buf::Pool pool{{.block_count = 16, .block_size = 4096, .reserve = 0}};
  const std::string big = "data: " + std::string(kMaxRunEventBytes, 'x') + "\n\n";
  std::vector<KeptEvent> events(2);
  for (KeptEvent& e : events) {
    e.sse = buf::make_frame(pool, buf::Lane::data, big);
    e.payload = buf::make_frame(pool, buf::Lane::data, std::string(1, '\0'));
  }
  MadeOnRequest forms(pool, events);
  EventRuns runs(pool, events, forms);
  EXPECT_FALSE(runs.form(WireForm::sse));
}

TEST_F(EventRunsTest, APoolWithoutRoomForTheRunGivesAnEmptyOneAndKeepsNothing) {
  // 25 events of two blocks each leave 14 free, 12 of them for data; their
  // run of 25 x 48 bytes would need 19.
  for (int i = 0; i < 25; ++i) add("data: " + std::string(40, 'x') + "\n\n", "x");
  EventRuns runs(pool, events, forms());
  const std::size_t free_before = pool.free_blocks();
  EXPECT_FALSE(runs.form(WireForm::sse));
  EXPECT_EQ(pool.free_blocks(), free_before);
}

}  // namespace
}  // namespace sluice::hub
