// What a node's subscribers see when Redis refuses their topic's key (it
// holds something other than a stream), with a real redis-server and real
// sluiced nodes: every subscriber is told `stream-refused`, the one that
// joins later as well as the first, and none waits in silence for events
// the node does not read. Once the key is a stream again the node reads
// it, found by its own retry each broker.reconnect_max_ms or at once by
// the next subscriber that joins.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

// A: subscribers, one loop. B: publishes. The key of "t" is a string.
class BrokerRefused : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.ok()) << redis_.error();
    ASSERT_TRUE(redis_.command({"SET", "sluice:t", "not a stream"}));
    b_ = std::make_unique<SluicedProcess>(node_settings(redis_));
    ASSERT_NE(b_->port(), 0) << b_->output();
  }

  // A with broker.reconnect_max_ms `retry_ms`: how often it tries a
  // refused key again on its own.
  void start_a(const std::string& retry_ms) {
    std::vector<std::string> settings = node_settings(redis_);
    std::erase_if(settings, [](const std::string& s) { return s.starts_with("broker.reconnect_max_ms="); });
    settings.emplace_back("broker.reconnect_max_ms=" + retry_ms);
    settings.emplace_back("threads=1");
    a_ = std::make_unique<SluicedProcess>(settings);
    ASSERT_NE(a_->port(), 0) << a_->output();
  }

  // A subscriber of "t" on A whose first news is the refusal.
  std::unique_ptr<SseSubscriber> refused_subscriber() {
    auto s = std::make_unique<SseSubscriber>(static_cast<std::uint16_t>(a_->port()), "/sse/t");
    EXPECT_TRUE(s->opened());
    EXPECT_TRUE(s->wait_for(1, 10s)) << "told nothing";
    if (s->events().empty()) return s;
    EXPECT_EQ(s->events().front().type, "sluice-reset") << s->events().front().data;
    EXPECT_NE(s->events().front().data.find("stream-refused"), std::string::npos) << s->events().front().data;
    return s;
  }

  RedisServer redis_;
  std::unique_ptr<SluicedProcess> a_, b_;
};

// The first subscriber's follow finds the key refused and every subscriber
// there is told; a second one, joining while the node does not read the
// key, is told too, at once. The key made a stream again, the node's own
// retry reads it, and both get what is published from then on.
TEST_F(BrokerRefused, EverySubscriberIsToldAndTheKeyIsReadOnceItIsAStreamAgain) {
  ASSERT_NO_FATAL_FAILURE(start_a("200"));
  auto first = refused_subscriber();
  auto later = refused_subscriber();
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(first->events().size(), 1U) << "the first is not told again: " << first->events().back().data;

  ASSERT_TRUE(redis_.command({"DEL", "sluice:t"}));
  ASSERT_TRUE(until_followed(*b_, "t", {first.get(), later.get()})) << "the key is read again";
  const Published after = publish_on(*b_, "t", "after");
  ASSERT_EQ(after.status, 200);
  for (SseSubscriber* s : {first.get(), later.get()}) {
    ASSERT_TRUE(wait_data(*s, "after", 10s));
    const auto got = events_of(*s);
    ASSERT_EQ(got.size(), 2U) << "the refusal and after";
    expect_exactly({got[1]}, {"after"}, {after.id}, "once read");
  }
}

// With the node's own retry a minute away, the subscriber that joins after
// the key was fixed is what has it tried again: it is told the refusal the
// node knows of, and then it and the first get the stream's events.
TEST_F(BrokerRefused, ASubscriberThatJoinsHasTheKeyTriedAgain) {
  ASSERT_NO_FATAL_FAILURE(start_a("60000"));
  auto first = refused_subscriber();
  ASSERT_TRUE(redis_.command({"DEL", "sluice:t"}));
  auto newcomer = refused_subscriber();
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(until_followed(*b_, "t", {first.get(), newcomer.get()})) << "the key is read again";
}

// What is published once the key is fixed, before the node reads it again
// (its own retry a minute away), reaches the subscriber told of the
// refusal: the node reads the new stream from its first entry, not from
// the newest it finds when it tries the key again.
TEST_F(BrokerRefused, WhatIsPublishedBeforeTheKeyIsReadAgainIsNotSkipped) {
  ASSERT_NO_FATAL_FAILURE(start_a("60000"));
  auto first = refused_subscriber();
  ASSERT_TRUE(redis_.command({"DEL", "sluice:t"}));
  std::vector<std::string> ids;
  for (const char* data : {"one", "two", "three"}) {
    const Published p = publish_on(*b_, "t", data);
    ASSERT_EQ(p.status, 200);
    ids.push_back(p.id);
  }
  auto newcomer = refused_subscriber();  // has the key tried again
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(wait_events(*first, 4, 10s)) << "the refusal and three events";
  const auto got = events_of(*first);
  expect_exactly({got.begin() + 1, got.end()}, {"one", "two", "three"}, ids, "after the refusal");
}

}  // namespace
}  // namespace sluice::test
