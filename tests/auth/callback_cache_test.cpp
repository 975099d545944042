#include "auth/callback_cache.hpp"

#include <gtest/gtest.h>

namespace sluice::auth {
namespace {

using namespace std::chrono_literals;
using Clock = CallbackCache::Clock;

const Clock::time_point kCacheT0 = Clock::time_point(100s);

TEST(CallbackCache, KeepsAnAnswerForItsTtl) {
  CallbackCache cache(10, 500ms);
  const auto key = cache.key_of("question");
  cache.store(key, Decision::forbid("no"), kCacheT0);
  ASSERT_NE(cache.find(key, kCacheT0 + 499ms), nullptr);
  EXPECT_EQ(cache.find(key, kCacheT0 + 499ms)->verdict, Verdict::forbidden);
  EXPECT_EQ(cache.find(key, kCacheT0 + 500ms), nullptr);
  EXPECT_EQ(cache.find(cache.key_of("another question"), kCacheT0), nullptr);
}

TEST(CallbackCache, NeverHoldsMoreThanItsBoundAndDropsTheOldest) {
  CallbackCache cache(3, 10s);
  for (int i = 0; i < 3; ++i) cache.store(cache.key_of("q" + std::to_string(i)), Decision::allow(), kCacheT0 + i * 1ms);
  EXPECT_EQ(cache.size(), 3u);
  cache.store(cache.key_of("q3"), Decision::allow(), kCacheT0 + 3ms);
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.find(cache.key_of("q0"), kCacheT0 + 4ms), nullptr);
  EXPECT_NE(cache.find(cache.key_of("q1"), kCacheT0 + 4ms), nullptr);
  EXPECT_NE(cache.find(cache.key_of("q3"), kCacheT0 + 4ms), nullptr);
}

TEST(CallbackCache, ExpiredAnswersLeaveBeforeLiveOnes) {
  CallbackCache cache(2, 1s);
  cache.store(cache.key_of("old"), Decision::allow(), kCacheT0);
  cache.store(cache.key_of("new"), Decision::allow(), kCacheT0 + 900ms);
  cache.store(cache.key_of("newest"), Decision::allow(), kCacheT0 + 1s);  // "old" has expired: it goes
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.find(cache.key_of("new"), kCacheT0 + 1s), nullptr);
  EXPECT_NE(cache.find(cache.key_of("newest"), kCacheT0 + 1s), nullptr);
}

TEST(CallbackCache, StoringAgainReplacesTheAnswerNotItsExpiry) {
  CallbackCache cache(2, 1s);
  const auto key = cache.key_of("q");
  cache.store(key, Decision::allow(), kCacheT0);
  cache.store(key, Decision::forbid("changed"), kCacheT0 + 500ms);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(key, kCacheT0 + 900ms)->verdict, Verdict::forbidden);
  EXPECT_EQ(cache.find(key, kCacheT0 + 1s), nullptr);
}

TEST(CallbackCache, ATtlOfZeroKeepsNothing) {
  CallbackCache cache(10, 0ms);
  EXPECT_FALSE(cache.enabled());
  cache.store(cache.key_of("q"), Decision::allow(), kCacheT0);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(CallbackCache, KeysDependOnEveryByteAndOnTheProcessKey) {
  const CallbackCache a(1, 1s);
  const CallbackCache b(1, 1s);
  EXPECT_EQ(a.key_of("abc"), a.key_of("abc"));
  EXPECT_FALSE(a.key_of("abc") == a.key_of("abd"));
  EXPECT_FALSE(a.key_of("abc") == b.key_of("abc"));
}

}  // namespace
}  // namespace sluice::auth
