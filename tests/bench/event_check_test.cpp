#include "event_check.hpp"

#include <gtest/gtest.h>

#include <string>

#include "stamp.hpp"

namespace sluice::bench {
namespace {

struct Totals {
  std::uint64_t bench = 0;
  std::uint64_t gaps = 0;
  std::uint64_t order_errors = 0;
  std::uint64_t stamps = 0;
};

// Feeds payloads of publisher `index` numbered by `seqs`, stamped `stamp`.
Totals feed(EventCheck& check, std::uint32_t index, std::initializer_list<std::uint64_t> seqs,
            std::uint64_t stamp = 1000) {
  Totals t;
  for (const std::uint64_t seq : seqs) {
    const EventCheck::Outcome o = check.take(make_payload(64, stamp, index, seq));
    t.bench += o.bench_event ? 1 : 0;
    t.gaps += o.gaps;
    t.order_errors += o.out_of_order ? 1 : 0;
    t.stamps += o.stamp_changed ? 1 : 0;
  }
  return t;
}

TEST(EventCheck, AnUnbrokenRunCountsNoGapAndKnowsItsLastNumber) {
  EventCheck check;
  const Totals t = feed(check, 3, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17});  // crosses 9->a and f->10
  EXPECT_EQ(t.bench, 13u);
  EXPECT_EQ(t.gaps, 0u);
  EXPECT_EQ(t.order_errors, 0u);
  EXPECT_EQ(check.last(3), 17u);
  EXPECT_EQ(check.last(0), 0u);
}

TEST(EventCheck, CountsAGapAfterARunAndGoesOnFromTheNumberAfterIt) {
  EventCheck check;
  EXPECT_EQ(feed(check, 0, {1, 2, 3, 7, 8}).gaps, 3u);
  EXPECT_EQ(check.last(0), 8u);
  const Totals back = feed(check, 0, {8, 5, 9});
  EXPECT_EQ(back.order_errors, 2u);
  EXPECT_EQ(back.gaps, 0u);
  EXPECT_EQ(check.last(0), 9u);
}

TEST(EventCheck, KeepsEachPublishersOwnSequence) {
  EventCheck check;
  EventCheck::Outcome o;
  for (std::uint64_t seq = 1; seq <= 50; ++seq) {
    for (std::uint32_t index : {0u, 1u}) {
      o = check.take(make_payload(40, 7, index, seq));
      ASSERT_EQ(o.gaps, 0u);
      ASSERT_FALSE(o.out_of_order);
    }
  }
  EXPECT_EQ(check.last(0), 50u);
  EXPECT_EQ(check.last(1), 50u);
  EXPECT_EQ(check.take(make_payload(40, 7, 1, 53)).gaps, 2u);
}

TEST(EventCheck, TheGeneratorsWrapIsInOrderAndAShortBatchIsAGap) {
  EventCheck check;
  EXPECT_EQ(feed(check, kGeneratorIndex, {1, 2, 3, 4, 1, 2, 3, 4, 1, 2}).gaps, 0u);
  const Totals cut = feed(check, kGeneratorIndex, {1, 2});  // 3 and 4 of the last batch never came
  EXPECT_EQ(cut.gaps, 2u);
  EXPECT_EQ(cut.order_errors, 0u);
}

TEST(EventCheck, SamplesEachNewNonzeroStampOnce) {
  EventCheck check;
  EXPECT_EQ(feed(check, 0, {1, 2, 3}, 500).stamps, 1u);
  EXPECT_EQ(feed(check, 0, {4, 5}, 900).stamps, 1u);
  EXPECT_EQ(feed(check, 0, {6, 7}, 0).stamps, 0u) << "a zero stamp is no stamp";
  const EventCheck::Outcome o = check.take(make_payload(64, 0x1234, 0, 8));
  EXPECT_TRUE(o.stamp_changed);
  EXPECT_EQ(o.stamp, 0x1234u);
}

TEST(EventCheck, APayloadThatIsNotTheBenchsIsSaidSo) {
  EventCheck check;
  EXPECT_FALSE(check.take("short").bench_event);
  EXPECT_FALSE(check.take("{\"sluice\":\"dropped\",\"count\":12345678901234567}").bench_event);
  EXPECT_TRUE(check.take(make_payload(32, 1, 0, 1)).bench_event);
}

}  // namespace
}  // namespace sluice::bench
