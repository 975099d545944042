#include "auth/grants.hpp"

#include <gtest/gtest.h>

namespace sluice::auth {
namespace {

Identity identity_with(std::initializer_list<std::string_view> subscribe,
                       std::initializer_list<std::string_view> publish) {
  Identity id;
  id.subject = "alice";
  for (auto p : subscribe) EXPECT_TRUE(id.subscribe.add(p, 128));
  for (auto p : publish) EXPECT_TRUE(id.publish.add(p, 128));
  return id;
}

TEST(Grants, NoTokenAndNoAnonymousGrantIsUnauthenticated) {
  const Decision d = decide_topic(nullptr, {}, Action::subscribe, "news");
  EXPECT_EQ(d.verdict, Verdict::unauthenticated);
  EXPECT_FALSE(d.bad_token);
  EXPECT_EQ(d.reason, "a token is needed to subscribe on 'news'");
}

TEST(Grants, AnonymousGrantsAreCheckedPerActionAndPattern) {
  AnonymousGrants anonymous;
  ASSERT_TRUE(anonymous.subscribe.add("public.*", 128));
  EXPECT_TRUE(decide_topic(nullptr, anonymous, Action::subscribe, "public.news").allowed());
  EXPECT_EQ(decide_topic(nullptr, anonymous, Action::publish, "public.news").verdict, Verdict::unauthenticated);
  EXPECT_EQ(decide_topic(nullptr, anonymous, Action::subscribe, "private").verdict, Verdict::unauthenticated);
}

TEST(Grants, ATokenWithoutTheTopicIsForbidden) {
  const Identity id = identity_with({"news"}, {"prices.*"});
  EXPECT_TRUE(decide_topic(&id, {}, Action::subscribe, "news").allowed());
  EXPECT_TRUE(decide_topic(&id, {}, Action::publish, "prices.eur").allowed());
  const Decision d = decide_topic(&id, {}, Action::publish, "news");
  EXPECT_EQ(d.verdict, Verdict::forbidden);
  EXPECT_EQ(d.reason, "the token does not grant publish on 'news'");
  EXPECT_EQ(decide_topic(&id, {}, Action::subscribe, "prices.eur").verdict, Verdict::forbidden);
}

TEST(Grants, AnonymousGrantsApplyToTokenHoldersToo) {
  AnonymousGrants anonymous;
  ASSERT_TRUE(anonymous.subscribe.add("*", 128));
  const Identity id = identity_with({}, {});
  EXPECT_TRUE(decide_topic(&id, anonymous, Action::subscribe, "anything").allowed());
  EXPECT_EQ(decide_topic(&id, anonymous, Action::publish, "anything").verdict, Verdict::forbidden);
}

}  // namespace
}  // namespace sluice::auth
