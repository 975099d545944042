#include "buf/memory_account.hpp"

#include <gtest/gtest.h>

namespace sluice::buf {
namespace {

TEST(MemoryAccount, ChargesTheConnectionAndTheServerTogether) {
  MemoryCap cap(1000);
  MemoryAccount a(&cap, 600);
  MemoryAccount b(&cap, 600);
  EXPECT_EQ(a.charge(500), ChargeStatus::ok);
  EXPECT_EQ(b.charge(400), ChargeStatus::ok);
  EXPECT_EQ(cap.charged(), 900u);
  // a has room of its own (100) but the server has only 100 left.
  EXPECT_EQ(b.charge(150), ChargeStatus::over_server);
  EXPECT_EQ(a.charge(101), ChargeStatus::over_connection);
  EXPECT_EQ(cap.charged(), 900u);
  EXPECT_EQ(a.charged(), 500u);
  EXPECT_EQ(b.charged(), 400u);
  EXPECT_EQ(cap.refused_by_server(), 1u);
  EXPECT_EQ(cap.refused_by_connection(), 1u);
}

// A charge tried and done without is no refusal: only the caller that
// then refuses counts it.
TEST(MemoryAccount, ATriedChargeIsCountedOnlyWhenTheCallerCountsItsRefusal) {
  MemoryCap cap(1000);
  MemoryAccount a(&cap, 600);
  EXPECT_EQ(a.try_charge(700), ChargeStatus::over_connection);
  EXPECT_EQ(a.try_charge(500), ChargeStatus::ok);
  MemoryAccount b(&cap, 1000);
  EXPECT_EQ(b.try_charge(600), ChargeStatus::over_server);
  EXPECT_EQ(cap.refused_by_connection(), 0u);
  EXPECT_EQ(cap.refused_by_server(), 0u);
  b.count_refusal(ChargeStatus::over_server);
  a.count_refusal(ChargeStatus::ok);
  EXPECT_EQ(cap.refused_by_server(), 1u);
  EXPECT_EQ(cap.refused_by_connection(), 0u);
  EXPECT_EQ(cap.charged(), 500u);
}

TEST(MemoryAccount, ResizeChargesGrowthAndGivesBackShrink) {
  MemoryCap cap(1000);
  MemoryAccount a(&cap, 1000);
  EXPECT_EQ(a.resize(0, 300), ChargeStatus::ok);
  EXPECT_EQ(a.resize(300, 800), ChargeStatus::ok);
  EXPECT_EQ(a.resize(800, 1200), ChargeStatus::over_connection);
  EXPECT_EQ(a.charged(), 800u);
  EXPECT_EQ(a.resize(800, 100), ChargeStatus::ok);
  EXPECT_EQ(cap.charged(), 100u);
}

// Ordinary charges stop short of the cap's reserve; a charge from the
// reserve may take it, within its account's own limit and never past the
// cap; what it holds there keeps ordinary charges out until given back.
TEST(MemoryAccount, OrdinaryChargesStopShortOfTheReserveWhichOnlyAChargeFromItTakesUpToTheCap) {
  MemoryCap cap(1000, 300);
  MemoryAccount full(&cap, 1000);
  EXPECT_EQ(full.try_charge(701), ChargeStatus::over_server);
  ASSERT_EQ(full.charge(650), ChargeStatus::ok);
  MemoryAccount records(&cap, 300);
  EXPECT_EQ(records.try_charge(200), ChargeStatus::over_server);
  EXPECT_EQ(records.charge_from_reserve(200), ChargeStatus::ok);
  EXPECT_EQ(cap.charged(), 850u);
  EXPECT_EQ(records.charge_from_reserve(101), ChargeStatus::over_connection);
  MemoryAccount more_records(&cap, 300);
  EXPECT_EQ(more_records.charge_from_reserve(151), ChargeStatus::over_server);
  EXPECT_EQ(more_records.charge_from_reserve(150), ChargeStatus::ok);
  EXPECT_EQ(cap.charged(), 1000u);
  // Freeing 100 of the ordinary charges leaves the count past the limit
  // less the reserve: nothing ordinary fits yet.
  full.release(100);
  EXPECT_EQ(full.try_charge(1), ChargeStatus::over_server);
  records.release(200);
  more_records.release(150);
  EXPECT_EQ(cap.charged(), 550u);
  EXPECT_EQ(full.try_charge(150), ChargeStatus::ok);
  EXPECT_EQ(cap.refused_by_server(), 0u);
}

// A reload sets the reserve with the limit.
TEST(MemoryAccount, AReloadedReserveBindsTheNextCharge) {
  MemoryCap cap(1000);
  MemoryAccount a(&cap, 1000);
  ASSERT_EQ(a.charge(900), ChargeStatus::ok);
  a.release(900);
  cap.set_limit(1000, 200);
  EXPECT_EQ(a.charge(801), ChargeStatus::over_server);
  EXPECT_EQ(a.charge_from_reserve(801), ChargeStatus::ok);
}

TEST(MemoryAccount, AnAccountGivesEverythingBackWhenDestroyed) {
  MemoryCap cap(1000);
  {
    MemoryAccount a(&cap, 1000);
    ASSERT_EQ(a.charge(700), ChargeStatus::ok);
    EXPECT_EQ(cap.charged(), 700u);
  }
  EXPECT_EQ(cap.charged(), 0u);
}

TEST(MemoryAccount, WithoutACapOnlyTheConnectionsLimitCounts) {
  MemoryAccount a(nullptr, 100);
  EXPECT_EQ(a.charge(100), ChargeStatus::ok);
  EXPECT_EQ(a.charge(1), ChargeStatus::over_connection);
  a.release(1000);  // more than was charged gives back what was
  EXPECT_EQ(a.charged(), 0u);
}

}  // namespace
}  // namespace sluice::buf
