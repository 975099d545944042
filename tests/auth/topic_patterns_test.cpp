#include "auth/topic_patterns.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc_counter.hpp"

namespace sluice::auth {
namespace {

TopicPatterns compiled(std::initializer_list<std::string_view> patterns) {
  TopicPatterns out;
  for (std::string_view p : patterns) EXPECT_TRUE(out.add(p, 128)) << p;
  return out;
}

TEST(TopicPatterns, ExactNamesMatchOnlyThemselves) {
  const TopicPatterns p = compiled({"news", "a:b"});
  EXPECT_TRUE(p.matches("news"));
  EXPECT_TRUE(p.matches("a:b"));
  EXPECT_FALSE(p.matches("new"));
  EXPECT_FALSE(p.matches("newsx"));
  EXPECT_FALSE(p.matches("news.x"));
  EXPECT_FALSE(p.matches(""));
}

TEST(TopicPatterns, PrefixMatchesEveryDepthBelowTheDot) {
  const TopicPatterns p = compiled({"prices.*"});
  EXPECT_TRUE(p.matches("prices.eur"));
  EXPECT_TRUE(p.matches("prices.eur.spot"));
  EXPECT_FALSE(p.matches("prices"));
  EXPECT_FALSE(p.matches("prices."));
  EXPECT_FALSE(p.matches("pricesx"));
  EXPECT_FALSE(p.matches("x.prices.eur"));
}

TEST(TopicPatterns, StarAloneMatchesEveryClientTopic) {
  const TopicPatterns p = compiled({"*"});
  EXPECT_TRUE(p.matches("news"));
  EXPECT_TRUE(p.matches("a.b.c"));
  EXPECT_EQ(p.size(), 1u);
}

// "*" is what a public-read setup grants anyone: it must not hand out the
// operator's figures with it.
TEST(TopicPatterns, ServerTopicsMatchOnlyTheirExactName) {
  const TopicPatterns star = compiled({"*"});
  EXPECT_FALSE(star.matches("$sys"));
  EXPECT_FALSE(star.matches("$metrics"));
  const TopicPatterns named = compiled({"$sys"});
  EXPECT_TRUE(named.matches("$sys"));
  EXPECT_FALSE(named.matches("$metrics"));
  EXPECT_FALSE(named.matches("sys"));
  TopicPatterns p;
  for (std::string_view bad : {"$", "$*", "$sys.*", "$a b", "$$sys"}) EXPECT_FALSE(p.add(bad, 128)) << bad;
}

TEST(TopicPatterns, EmptyMatchesNothing) {
  const TopicPatterns p;
  EXPECT_TRUE(p.empty());
  EXPECT_FALSE(p.matches("news"));
}

TEST(TopicPatterns, RefusesEveryOtherUseOfStar) {
  TopicPatterns p;
  for (std::string_view bad : {"a*", "*.b", "a.*.c", "**", ".*", "a.**", "", "a b", "a/b", "a.*x", "*a"}) {
    EXPECT_FALSE(p.add(bad, 128)) << bad;
  }
  EXPECT_TRUE(p.empty());
}

TEST(TopicPatterns, RefusesNamesOverTheLengthLimit) {
  TopicPatterns p;
  EXPECT_TRUE(p.add(std::string(8, 'a'), 8));
  EXPECT_FALSE(p.add(std::string(9, 'a'), 8));
  EXPECT_TRUE(p.add(std::string(8, 'b') + ".*", 8));  // the limit is on the name part
  EXPECT_FALSE(p.add(std::string(9, 'b') + ".*", 8));
}

TEST(TopicPatterns, MatchingAllocatesNothing) {
  TopicPatterns p;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(p.add("topic" + std::to_string(i) + ".*", 128));
  ASSERT_TRUE(p.add("news", 128));
  const std::string hit = "topic49.deep.name";
  const std::string miss = "other.name";
  const std::uint64_t before = sluice::test::allocations();
  bool all = true;
  for (int i = 0; i < 1000; ++i) all = all && p.matches(hit) && !p.matches(miss) && p.matches("news");
  EXPECT_EQ(sluice::test::allocations(), before);
  EXPECT_TRUE(all);
}

TEST(TopicPatterns, FromConfigNamesTheKeyAndThePattern) {
  TopicPatterns p;
  const std::vector<std::string> good{"news", "public.*"};
  EXPECT_EQ(TopicPatterns::from_config(good, "auth.anonymous_subscribe", 64, 128, p), std::nullopt);
  EXPECT_TRUE(p.matches("public.x"));
  const std::vector<std::string> bad{"news", "pub*"};
  const auto error = TopicPatterns::from_config(bad, "auth.anonymous_subscribe", 64, 128, p);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("config key 'auth.anonymous_subscribe'"), std::string::npos) << *error;
  EXPECT_NE(error->find("'pub*'"), std::string::npos) << *error;
  const auto too_many = TopicPatterns::from_config(good, "auth.anonymous_publish", 1, 128, p);
  ASSERT_TRUE(too_many);
  EXPECT_NE(too_many->find("auth.max_patterns (1)"), std::string::npos) << *too_many;
}

}  // namespace
}  // namespace sluice::auth
