#include "broker/continuity.hpp"

#include <gtest/gtest.h>

namespace sluice::broker {
namespace {

constexpr std::uint64_t kE = 1796131742915;  // an epoch
constexpr std::uint64_t kLater = kE + 5000;  // the epoch of a stream made afresh

TEST(Continuity, NextEntryFollowsWithoutRemark) {
  const Step step = step_after({kE, 4}, {kE, 5});
  EXPECT_FALSE(step.stale);
  EXPECT_EQ(step.reset, nullptr);
  EXPECT_FALSE(step.gap);
}

TEST(Continuity, AHoleIsAGapOfExactlyTheMissingIds) {
  const Step step = step_after({kE, 4}, {kE, 9});
  EXPECT_EQ(step.reset, nullptr);
  ASSERT_TRUE(step.gap);
  EXPECT_EQ(step.gap_first, (StreamId{kE, 5}));
  EXPECT_EQ(step.gap_last, (StreamId{kE, 8}));
}

TEST(Continuity, BeforeTheStreamExistedItsFirstEntryIsOwed) {
  EXPECT_FALSE(step_after({0, 0}, {kE, 1}).gap);
  const Step late = step_after({0, 0}, {kE, 3});
  ASSERT_TRUE(late.gap);
  EXPECT_EQ(late.gap_first, (StreamId{kE, 1}));
  EXPECT_EQ(late.gap_last, (StreamId{kE, 2}));
  EXPECT_EQ(late.reset, nullptr);
}

TEST(Continuity, ANewEpochIsAResetThenItsOwnHoles) {
  const Step step = step_after({kE, 40}, {kLater, 1});
  EXPECT_STREQ(step.reset, kStreamReplaced);
  EXPECT_FALSE(step.gap);
  const Step holed = step_after({kE, 40}, {kLater, 3});
  EXPECT_STREQ(holed.reset, kStreamReplaced);
  ASSERT_TRUE(holed.gap);
  EXPECT_EQ(holed.gap_first, (StreamId{kLater, 1}));
}

TEST(Continuity, WhatWasHandedOverIsStale) {
  EXPECT_TRUE(step_after({kE, 4}, {kE, 4}).stale);
  EXPECT_TRUE(step_after({kE, 4}, {kE, 2}).stale);
}

TEST(Continuity, RecheckAfterReconnect) {
  EXPECT_EQ(recheck({kE, 4}, true, {kE, 4}).reset, nullptr);
  EXPECT_EQ(recheck({kE, 4}, true, {kE, 90}).position, (StreamId{kE, 4}));  // read on; holes show as gaps
  const Recheck lost = recheck({kE, 4}, false, {});
  EXPECT_STREQ(lost.reset, kStreamLost);
  EXPECT_EQ(lost.position, (StreamId{0, 0}));
  const Recheck replaced = recheck({kE, 4}, true, {kLater, 2});
  EXPECT_STREQ(replaced.reset, kStreamReplaced);
  EXPECT_EQ(replaced.position, (StreamId{kLater, 0}));
  const Recheck rewound = recheck({kE, 9}, true, {kE, 6});
  EXPECT_STREQ(rewound.reset, kStreamRewound);
  EXPECT_EQ(rewound.position, (StreamId{kE, 6}));
  EXPECT_EQ(recheck({0, 0}, false, {}).reset, nullptr);
  EXPECT_EQ(recheck({0, 0}, true, {kE, 3}).position, (StreamId{0, 0}));
}

TEST(Continuity, ResumeNeedsTheClientsOwnEventStillThere) {
  EXPECT_EQ(check_resume({kE, 7}, true, {kE, 7}), nullptr);
  EXPECT_STREQ(check_resume({kE, 7}, true, {kE, 9}), kTooOld);
  EXPECT_STREQ(check_resume({kE, 7}, true, {kLater, 1}), kOtherEpoch);
  EXPECT_STREQ(check_resume({kE, 7}, false, {}), kUnknownId);
  EXPECT_EQ(check_resume({kE, 0}, true, {kE, 1}), nullptr);  // before the first event
  EXPECT_STREQ(check_resume({kE, 0}, true, {kE, 2}), kTooOld);
}

}  // namespace
}  // namespace sluice::broker
