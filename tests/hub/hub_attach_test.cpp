#include <gtest/gtest.h>

#include <vector>

#include "hub_fixture.hpp"

namespace sluice::hub::test {
namespace {

// A node that reads the topic but keeps less than the client missed parks
// the client while its owner fetches the rest (deliver_fetched), then
// attach() joins it to the live stream at the seam.
struct ParkedResumeTest : StreamTopicTest {
  // Replay reaches back 4 events; 64 are kept (kMinKeptEvents).
  ParkedResumeTest()
      : StreamTopicTest({.max_topics = 3, .max_topic_name = 16, .max_subscribers_per_topic = 4, .history_events = 4}) {
    EXPECT_EQ(hub.subscribe("t", &keeper), HubStatus::ok);
    (void)book.stream_started("t", kEpoch, 0);
    for (std::uint64_t seq = 1; seq <= 70; ++seq) append(kEpoch, seq, "e");
  }
  void fetched(ResetCollector& c, std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t seq = first; seq <= last; ++seq) hub.deliver_fetched("t", &c, 0, kEpoch, seq, {"f"});
  }
  struct IdsOnly : Subscriber {
    std::vector<std::uint64_t> ids;
    void deliver(const Delivery& d) override { ids.push_back(d.id); }
    void lost(std::uint32_t, std::uint64_t, std::uint64_t) override {}
  } keeper;
};

TEST_F(ParkedResumeTest, TheFetchedEventsThenTheKeptOnesThenLiveExactlyOnce) {
  ResetCollector resumed;
  const ReplayResult r = hub.subscribe_after("t", &resumed, 0, "mx4qgqmb:3");
  ASSERT_TRUE(r.parked);
  EXPECT_EQ(r.reset, nullptr);
  EXPECT_EQ(r.after, 3u);
  EXPECT_EQ(r.newest, 70u);
  append(kEpoch, 71, "live while parked");
  EXPECT_TRUE(resumed.ids.empty()) << "nothing live while parked";
  std::uint64_t oldest = 0;
  ASSERT_TRUE(book.inspect_topic("t", [&](const TopicView& v) { oldest = v.history.oldest_seq(); }));
  ASSERT_GT(oldest, 5u) << "the history must not reach back to the client's id";

  fetched(resumed, 4, 4);
  const AttachResult short_of = hub.attach("t", &resumed, kEpoch, 4);
  ASSERT_EQ(short_of.kind, AttachResult::Kind::fetch) << "the history no longer holds 5";
  EXPECT_EQ(short_of.upto, 71u);
  fetched(resumed, 5, oldest - 1);
  EXPECT_EQ(hub.attach("t", &resumed, kEpoch, oldest - 1).kind, AttachResult::Kind::attached);
  append(kEpoch, 72, "live");
  std::vector<std::uint64_t> expected;
  for (std::uint64_t seq = 4; seq <= 72; ++seq) expected.push_back(seq);
  EXPECT_EQ(resumed.ids, expected);
  EXPECT_TRUE(resumed.resets.empty());
  EXPECT_EQ(hub.attach("t", &resumed, kEpoch, 72).kind, AttachResult::Kind::gone) << "not parked any more";
}

TEST_F(ParkedResumeTest, AStreamReplacedWhileFetchingIsTold) {
  ResetCollector resumed;
  ASSERT_TRUE(hub.subscribe_after("t", &resumed, 0, "mx4qgqmb:3").parked);
  book.stream_reset("t", "stream-lost", StreamAfterReset::gone);
  pump();
  EXPECT_TRUE(resumed.resets.empty()) << "a parked subscriber hears it when it attaches";
  const AttachResult a = hub.attach("t", &resumed, kEpoch, 10);
  EXPECT_EQ(a.kind, AttachResult::Kind::reset);
  append(kLaterEpoch, 1, "new");
  EXPECT_EQ(resumed.ids, (std::vector<std::uint64_t>{1}));
}

TEST_F(ParkedResumeTest, ReleasedItGoesLiveFromTheNextEvent) {
  ResetCollector resumed;
  ASSERT_TRUE(hub.subscribe_after("t", &resumed, 0, "mx4qgqmb:3").parked);
  hub.release("t", &resumed);
  append(kEpoch, 71, "next");
  EXPECT_EQ(resumed.ids, (std::vector<std::uint64_t>{71}));
}

}  // namespace
}  // namespace sluice::hub::test
