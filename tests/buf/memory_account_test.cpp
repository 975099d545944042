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

// A charge past the cap is held to the account's own limit, counted in
// the cap (so the cap says what is held), and refuses every other charge
// until the cap's count is back under its limit.
TEST(MemoryAccount, AChargePastTheCapKeepsToTheAccountsLimitAndStopsEveryOtherCharge) {
  MemoryCap cap(1000);
  MemoryAccount full(&cap, 1000);
  ASSERT_EQ(full.charge(950), ChargeStatus::ok);
  MemoryAccount records(&cap, 300);
  EXPECT_EQ(records.try_charge(200), ChargeStatus::over_server);
  EXPECT_EQ(records.charge_past_cap(200), ChargeStatus::ok);
  EXPECT_EQ(cap.charged(), 1150u);
  EXPECT_EQ(records.charged(), 200u);
  EXPECT_EQ(records.charge_past_cap(101), ChargeStatus::over_connection);
  EXPECT_EQ(cap.charged(), 1150u);
  // Freeing 100 leaves the cap past its limit: nothing fits yet.
  full.release(100);
  EXPECT_EQ(full.try_charge(1), ChargeStatus::over_server);
  records.release(200);
  EXPECT_EQ(cap.charged(), 850u);
  EXPECT_EQ(full.try_charge(150), ChargeStatus::ok);
  EXPECT_EQ(cap.refused_by_server(), 0u);
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
