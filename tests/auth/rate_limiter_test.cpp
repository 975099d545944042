#include "auth/rate_limiter.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include "alloc_counter.hpp"

namespace sluice::auth {
namespace {

using namespace std::chrono_literals;
using Clock = RateTable::Clock;

const Clock::time_point kLimiterT0 = Clock::time_point(1000s);

PeerAddress address(const char* text) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, text, &a.sin_addr);
  return peer_address(reinterpret_cast<const sockaddr*>(&a), sizeof a);
}

RateConfig only_subscribe(RateRule per_address, RateRule per_identity) {
  RateConfig config;
  config.subscribe_per_address = per_address;
  config.subscribe_per_identity = per_identity;
  return config;
}

TEST(RateTable, ABucketAllowsItsBurstThenItsRate) {
  RateTable table(64);
  const RateRule rule{2, 3};  // 2 per second, 3 at once
  EXPECT_EQ(table.take(7, rule, kLimiterT0), 0);
  EXPECT_EQ(table.take(7, rule, kLimiterT0), 0);
  EXPECT_EQ(table.take(7, rule, kLimiterT0), 0);
  EXPECT_EQ(table.take(7, rule, kLimiterT0), 500'000'000);  // the next token in half a second
  EXPECT_EQ(table.take(7, rule, kLimiterT0 + 499ms), 1'000'000);
  EXPECT_EQ(table.take(7, rule, kLimiterT0 + 500ms), 0);
  // From then on one every 500 ms, never two.
  for (int i = 2; i < 10; ++i) {
    EXPECT_EQ(table.take(7, rule, kLimiterT0 + i * 500ms), 0) << i;
    EXPECT_GT(table.take(7, rule, kLimiterT0 + i * 500ms), 0) << i;
  }
}

TEST(RateTable, AnIdleBucketRefillsToItsBurstAndNoFurther) {
  RateTable table(64);
  const RateRule rule{10, 5};
  for (int i = 0; i < 5; ++i) ASSERT_EQ(table.take(1, rule, kLimiterT0), 0);
  ASSERT_GT(table.take(1, rule, kLimiterT0), 0);
  const auto later = kLimiterT0 + 1h;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(table.take(1, rule, later), 0) << i;
  EXPECT_GT(table.take(1, rule, later), 0);
}

TEST(RateTable, ARuleOfZeroIsNoLimit) {
  RateTable table(8);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(table.take(1, RateRule{0, 1}, kLimiterT0), 0);
}

TEST(RateTable, StaysItsSizeAndSaysWhenItForgetsABucket) {
  RateTable table(8);  // one set of eight
  ASSERT_EQ(table.capacity(), 8u);
  const RateRule rule{1, 1};
  for (std::uint64_t key = 1; key <= 8; ++key) ASSERT_EQ(table.take(key, rule, kLimiterT0), 0);
  for (std::uint64_t key = 1; key <= 8; ++key) ASSERT_GT(table.take(key, rule, kLimiterT0), 0);
  EXPECT_EQ(table.evictions(), 0u);
  // A ninth key while all eight are still refilling: one is forgotten.
  EXPECT_EQ(table.take(9, rule, kLimiterT0 + 1ms), 0);
  EXPECT_EQ(table.evictions(), 1u);
  EXPECT_EQ(table.capacity(), 8u);
  // The forgotten one (the nearest to full: key 1, taken first) starts again full.
  EXPECT_EQ(table.take(1, rule, kLimiterT0 + 2ms), 0);
  // Once buckets are full again, reusing their entries loses nothing.
  const std::uint64_t before = table.evictions();
  for (std::uint64_t key = 100; key < 108; ++key) EXPECT_EQ(table.take(key, rule, kLimiterT0 + 10s), 0);
  EXPECT_EQ(table.evictions(), before);
}

TEST(RateTable, RoundsItsSizeUpToWholeSets) {
  EXPECT_EQ(RateTable(1).capacity(), 8u);
  EXPECT_EQ(RateTable(100).capacity(), 128u);
}

TEST(RateLimiter, RefusesWithTheLimitsKeyAndRetryAfter) {
  RateLimiter limiter(only_subscribe({1, 2}, {0, 1}));
  const PeerAddress a = address("203.0.113.7");
  EXPECT_TRUE(limiter.check(RateKind::subscribe, a, "", kLimiterT0).allowed);
  EXPECT_TRUE(limiter.check(RateKind::subscribe, a, "", kLimiterT0).allowed);
  const RateCheck refused = limiter.check(RateKind::subscribe, a, "", kLimiterT0 + 300ms);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after_s, 1u);  // 700 ms, rounded up
  EXPECT_STREQ(refused.limit, "auth.rate.subscribe_per_ip");
  const Decision d = rate_decision(refused);
  EXPECT_EQ(d.verdict, Verdict::too_many);
  EXPECT_EQ(d.retry_after_s, 1u);
  EXPECT_EQ(d.reason, "over auth.rate.subscribe_per_ip");
  EXPECT_TRUE(limiter.check(RateKind::subscribe, address("203.0.113.8"), "", kLimiterT0).allowed);
}

TEST(RateLimiter, CountsPerIdentityAcrossAddresses) {
  RateLimiter limiter(only_subscribe({0, 1}, {1, 1}));
  EXPECT_TRUE(limiter.check(RateKind::subscribe, address("10.0.0.1"), "alice", kLimiterT0).allowed);
  const RateCheck refused = limiter.check(RateKind::subscribe, address("10.0.0.2"), "alice", kLimiterT0);
  EXPECT_FALSE(refused.allowed);
  EXPECT_STREQ(refused.limit, "auth.rate.subscribe_per_identity");
  EXPECT_TRUE(limiter.check(RateKind::subscribe, address("10.0.0.2"), "bob", kLimiterT0).allowed);
}

TEST(RateLimiter, KindsHaveSeparateBuckets) {
  RateConfig config;
  config.connect_per_address = {1, 1};
  config.publish_per_address = {1, 1};
  RateLimiter limiter(config);
  const PeerAddress a = address("10.0.0.1");
  EXPECT_TRUE(limiter.check(RateKind::connect, a, "", kLimiterT0).allowed);
  EXPECT_FALSE(limiter.check(RateKind::connect, a, "", kLimiterT0).allowed);
  EXPECT_TRUE(limiter.check(RateKind::publish, a, "", kLimiterT0).allowed);
  EXPECT_STREQ(limiter.check(RateKind::publish, a, "", kLimiterT0).limit, "auth.rate.publish_per_ip");
}

TEST(RateLimiter, OneScopeAtATimeSpendsOnlyThatBucket) {
  RateLimiter limiter(only_subscribe({1, 1}, {1, 1}));
  const PeerAddress a = address("10.0.0.1");
  // The address's token first (before a token's signature is checked)...
  EXPECT_TRUE(limiter.check_one(RateKind::subscribe, RateScope::address, a.view(), kLimiterT0).allowed);
  const RateCheck again = limiter.check_one(RateKind::subscribe, RateScope::address, a.view(), kLimiterT0);
  EXPECT_FALSE(again.allowed);
  EXPECT_STREQ(again.limit, "auth.rate.subscribe_per_ip");
  // ...the identity's after: its bucket was left whole.
  EXPECT_TRUE(limiter.check_one(RateKind::subscribe, RateScope::identity, "alice", kLimiterT0).allowed);
  EXPECT_FALSE(limiter.check_one(RateKind::subscribe, RateScope::identity, "alice", kLimiterT0).allowed);
  // Nothing to count by: allowed, nothing spent.
  EXPECT_TRUE(limiter.check_one(RateKind::subscribe, RateScope::identity, "", kLimiterT0).allowed);
}

TEST(RateLimiter, AnAddressAndASubjectWithTheSameBytesDoNotShare) {
  RateLimiter limiter(only_subscribe({1, 1}, {1, 1}));
  const PeerAddress a = address("65.66.67.68");  // the bytes "ABCD"
  EXPECT_TRUE(limiter.check(RateKind::subscribe, a, "ABCD", kLimiterT0).allowed);
}

TEST(RateLimiter, CheckingAllocatesNothing) {
  RateConfig config;
  config.table_entries = 1024;
  RateLimiter limiter(config);
  const PeerAddress a = address("10.0.0.1");
  const std::string subject = "a subject longer than any small-string buffer";
  const std::uint64_t before = sluice::test::allocations();
  int allowed = 0;
  for (int i = 0; i < 10000; ++i) {
    allowed += limiter.check(RateKind::publish, a, subject, kLimiterT0 + i * 1ms).allowed ? 1 : 0;
    allowed += limiter.check(RateKind::subscribe, address("10.0.0.2"), "", kLimiterT0 + i * 1ms).allowed ? 1 : 0;
  }
  EXPECT_EQ(sluice::test::allocations(), before);
  EXPECT_GT(allowed, 0);
}

}  // namespace
}  // namespace sluice::auth
