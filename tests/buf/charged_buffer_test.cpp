#include "buf/charged_buffer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::buf {
namespace {

TEST(ChargedBuffer, GrowthPastTheRestingSizeIsCharged) {
  MemoryCap cap(1 << 20);
  MemoryAccount account(&cap, 1 << 20);
  ChargedBuffer buffer(&account);
  ASSERT_EQ(buffer.append(std::string(kRestingCapacity, 'a'), 1 << 20), Growth::ok);
  EXPECT_EQ(account.charged(), 0u);
  ASSERT_EQ(buffer.append("b", 1 << 20), Growth::ok);
  EXPECT_EQ(account.charged(), buffer.capacity() - kRestingCapacity);
  EXPECT_EQ(buffer.size(), kRestingCapacity + 1);
  EXPECT_EQ(buffer.text().back(), 'b');
}

TEST(ChargedBuffer, MovingHandsTheChargeOverOnce) {
  MemoryCap cap(1 << 20);
  MemoryAccount account(&cap, 1 << 20);
  ChargedBuffer large(&account);
  ASSERT_EQ(large.append(std::string(kRestingCapacity + 1, 'a'), 1 << 20), Growth::ok);
  const std::size_t charge = account.charged();
  ASSERT_GT(charge, 0u);
  ChargedBuffer moved(std::move(large));
  EXPECT_EQ(account.charged(), charge);
  EXPECT_EQ(moved.size(), kRestingCapacity + 1);
  {
    ChargedBuffer replaced(&account);
    ASSERT_EQ(replaced.append(std::string(kRestingCapacity + 1, 'b'), 1 << 20), Growth::ok);
    EXPECT_EQ(account.charged(), 2 * charge);
    // Assigning over a charged buffer gives its charge back first.
    replaced = std::move(moved);
    EXPECT_EQ(account.charged(), charge);
    EXPECT_EQ(replaced.text().front(), 'a');
  }
  EXPECT_EQ(account.charged(), 0u);
  EXPECT_EQ(cap.charged(), 0u);
}

TEST(ChargedBuffer, ARefusedGrowthChangesNothing) {
  MemoryAccount account(nullptr, 1000);
  ChargedBuffer buffer(&account);
  ASSERT_EQ(buffer.append("held", 1 << 20), Growth::ok);
  EXPECT_EQ(buffer.reserve(kRestingCapacity + 2000, 1 << 20), Growth::over_connection);
  EXPECT_EQ(buffer.text(), "held");
  EXPECT_EQ(account.charged(), 0u);
}

TEST(ChargedBuffer, TrimGivesBackALargeBufferAndKeepsASmallOne) {
  MemoryAccount account(nullptr, 1 << 20);
  ChargedBuffer buffer(&account);
  ASSERT_EQ(buffer.append("small", 1 << 20), Growth::ok);
  const std::size_t small = buffer.capacity();
  buffer.trim();
  EXPECT_EQ(buffer.capacity(), small);
  ASSERT_EQ(buffer.reserve(100'000, 1 << 20), Growth::ok);
  EXPECT_GT(account.charged(), 0u);
  buffer.trim();
  EXPECT_EQ(buffer.capacity(), 0u);
  EXPECT_EQ(account.charged(), 0u);
}

TEST(ChargedBuffer, GrowthStopsAtTheLimit) {
  ChargedBuffer buffer(nullptr);
  ASSERT_EQ(buffer.reserve(5000, 6000), Growth::ok);
  ASSERT_EQ(buffer.reserve(5001, 6000), Growth::ok);  // doubling would pass the limit
  EXPECT_EQ(buffer.capacity(), 6000u);
}

}  // namespace
}  // namespace sluice::buf
