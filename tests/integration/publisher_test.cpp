// A Publisher of one topic (Server::publisher): its events reach the
// topic's subscribers as Server::publish's do, with the same answers to a
// bad name or event, counted alike; it holds its topic, so the topic is
// not reclaimed at topics.max while the publisher lives, and is once it is
// gone; refused at topics.max, it publishes once there is room; a stalled
// subscriber costs its waiting publish one timeout; publishers on several
// threads, each with its own, share a topic without losing or reordering
// an event; a Server destroyed before its publishers says so and stops.
// The broker case is in broker_batch_test.cpp. These tests also run under
// ThreadSanitizer (make test).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "test_client.hpp"

namespace sluice::test {
namespace {

TEST(Publisher, ItsEventsReachTheTopicsSubscribersAsPublishesByNameDo) {
  RunningServer running;
  server::Server& server = running.server();
  SseSubscriber sub(running.port(), "/sse/prices");
  ASSERT_TRUE(sub.opened());
  server::Publisher prices = server.publisher("prices");
  ASSERT_EQ(prices.status(), server::PublishStatus::ok);
  EXPECT_EQ(prices.topic(), "prices");

  const server::PublishResult first = prices.publish("101.5", "tick");
  ASSERT_EQ(first.status, server::PublishStatus::ok);
  EXPECT_EQ(first.subscribers, 1u);
  const server::PublishResult by_name = server.publish("prices", "101.7");
  ASSERT_EQ(by_name.status, server::PublishStatus::ok);
  const server::PublishResult waited = prices.publish_waiting("101.9", {.timeout = 5s});
  ASSERT_EQ(waited.status, server::PublishStatus::ok);
  EXPECT_EQ(by_name.id, first.id + 1);
  EXPECT_EQ(waited.id, first.id + 2);

  ASSERT_TRUE(sub.wait_for(3));
  EXPECT_EQ(sub.events()[0].data, "101.5");
  EXPECT_EQ(sub.events()[0].type, "tick");
  EXPECT_EQ(sub.events()[1].data, "101.7");
  EXPECT_EQ(sub.events()[2].data, "101.9");
  EXPECT_EQ(seq_of(sub.events()[2].id), waited.id);
  // Counted as the application's publishes are, a refusal by its reason.
  EXPECT_EQ(server.publisher("$sys.x").publish("x").status, server::PublishStatus::bad_topic);
  const std::string metrics = http_request(running.port(), "GET", "/metrics").body;
  EXPECT_NE(metrics.find("\nsluice_events_published_total 3\n"), std::string::npos) << metrics;
}

TEST(Publisher, ABadTopicOrEventIsRefusedAsAPublishByNameIs) {
  RunningServer running;
  server::Server& server = running.server();
  EXPECT_EQ(server.publisher("no spaces").status(), server::PublishStatus::bad_topic);
  EXPECT_EQ(server.publisher("").status(), server::PublishStatus::bad_topic);
  EXPECT_EQ(server.publisher("$sys").status(), server::PublishStatus::bad_topic) << "the server's own topic";
  server::Publisher refused = server.publisher("no spaces");
  EXPECT_EQ(refused.publish("x").status, server::PublishStatus::bad_topic) << "every publish says why";
  EXPECT_EQ(refused.publish_waiting("x", {}).status, server::PublishStatus::bad_topic);

  server::Publisher news = server.publisher("news");
  EXPECT_EQ(news.publish("x", "two\nlines").status, server::PublishStatus::bad_event);
  EXPECT_EQ(news.publish("x", std::string(256, 'n')).status, server::PublishStatus::bad_event);
  EXPECT_EQ(news.publish_waiting("x", {}, "a\rb").status, server::PublishStatus::bad_event);
  EXPECT_EQ(news.publish_waiting("x", {.timeout = -1ms}).status, server::PublishStatus::bad_timeout);
  EXPECT_EQ(news.publish("fine").status, server::PublishStatus::ok);

  // Moved from, a publisher answers bad_topic and publishes nothing.
  server::Publisher taken = std::move(news);
  EXPECT_EQ(taken.publish("still fine").status, server::PublishStatus::ok);
  EXPECT_EQ(news.status(), server::PublishStatus::bad_topic);  // NOLINT(bugprone-use-after-move): what it answers
  EXPECT_EQ(news.publish("x").status, server::PublishStatus::bad_topic);
}

// topics.max of 1 (and no $sys topic, which would take the one place):
// the topic a publisher holds is not reclaimed for another while the
// publisher lives, though it has no event and nobody follows it; once the
// publisher is gone, it is.
TEST(Publisher, ItsTopicIsNotReclaimedWhileItLivesAndIsOnceItIsGone) {
  server::Config config = without_system_feed();
  config.hub.max_topics = 1;
  RunningServer running(config);
  server::Server& server = running.server();
  {
    const server::Publisher held = server.publisher("held");
    ASSERT_EQ(held.status(), server::PublishStatus::ok);
    EXPECT_EQ(server.publish("other", "x").status, server::PublishStatus::too_many_topics);
    EXPECT_EQ(server.publisher("other").status(), server::PublishStatus::too_many_topics);
  }
  EXPECT_EQ(server.publish("other", "x").status, server::PublishStatus::ok);
}

// A publisher refused its topic at topics.max is counted as a publish by
// name is, each time, and publishes once the table has room again.
TEST(Publisher, RefusedAtTheTopicLimitItIsCountedAndPublishesOnceThereIsRoom) {
  server::Config config = without_system_feed();
  config.hub.max_topics = 1;
  RunningServer running(config);
  server::Server& server = running.server();
  std::optional<server::Publisher> first(server.publisher("first"));
  ASSERT_EQ(first->status(), server::PublishStatus::ok);
  server::Publisher late = server.publisher("late");
  EXPECT_EQ(late.status(), server::PublishStatus::too_many_topics);
  EXPECT_EQ(late.publish("x").status, server::PublishStatus::too_many_topics);
  EXPECT_EQ(late.publish_waiting("x", {}).status, server::PublishStatus::too_many_topics);
  const std::string metrics = http_request(running.port(), "GET", "/metrics").body;
  EXPECT_NE(metrics.find("\nsluice_publish_refusals_total{reason=\"too_many_topics\"} 2\n"), std::string::npos)
      << metrics;

  first.reset();  // "first" has no event and nobody follows it: reclaimed for "late"
  const server::PublishResult r = late.publish("at last");
  EXPECT_EQ(r.status, server::PublishStatus::ok);
  EXPECT_EQ(late.status(), server::PublishStatus::ok);
  EXPECT_EQ(server.publish("first", "x").status, server::PublishStatus::too_many_topics) << "late holds the place";
}

// A subscriber that stops reading holds a waiting Publisher for one
// timeout, as it holds a publish_waiting() by name: timed_out, nothing
// published, the subscriber cut off; the next publish goes through.
TEST(Publisher, ASubscriberThatStopsReadingCostsItOneTimeoutAndIsCutOff) {
  server::Config config;
  config.threads = 1;
  config.tcp_send_buffer = 4096;
  config.connection.send = {.max_bytes = 16 << 10, .max_frames = 64, .max_control_frames = 16};
  RunningServer running(config);
  server::Server& server = running.server();
  SseSubscriber stalled(running.port(), "/sse/held?policy=fifo", 4096);
  ASSERT_TRUE(stalled.opened());
  server::Publisher publisher = server.publisher("held");
  const std::string data(200, 'd');
  server::PublishResult r;
  std::size_t published = 0;
  for (; published < 10000; ++published) {
    r = publisher.publish_waiting(data, {.timeout = 200ms});
    if (r.status != server::PublishStatus::ok) break;
  }
  ASSERT_EQ(r.status, server::PublishStatus::timed_out) << "after " << published << " events";
  ASSERT_TRUE(stalled.client().read_until_closed());
  EXPECT_EQ(server.stats().slow_disconnects, 1u);
  EXPECT_EQ(publisher.publish_waiting(data, {.timeout = 5s}).status, server::PublishStatus::ok);
}

// Four threads, each with a Publisher of the same topic, and a subscriber
// that reads everything as it comes: every event arrives once, each
// thread's in the order it published them, under the ids the publishes
// answered. 6,000 events are more than the subscriber's budget of 4,096
// frames, so the publishers also wait for it now and then.
TEST(Publisher, PublishersOnSeveralThreadsShareATopicAndLoseNothing) {
  constexpr std::size_t kThreads = 4;
  constexpr std::size_t kEach = 1500;
  RunningServer running;
  server::Server& server = running.server();
  SseSubscriber sub(running.port(), "/sse/shared?policy=fifo");
  ASSERT_TRUE(sub.opened());
  bool all_read = false;
  std::thread reader([&sub, &all_read] { all_read = sub.wait_for(kThreads * kEach, 60s); });
  std::vector<std::vector<std::uint64_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&server, &ids, t] {
      server::Publisher publisher = server.publisher("shared");
      for (std::size_t i = 0; i < kEach; ++i) {
        const server::PublishResult r =
            publisher.publish_waiting(std::to_string(t) + ":" + std::to_string(i), {.timeout = 5s});
        if (r.status != server::PublishStatus::ok) return;
        ids[t].push_back(r.id);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  reader.join();
  for (std::size_t t = 0; t < kThreads; ++t) ASSERT_EQ(ids[t].size(), kEach) << "thread " << t;
  ASSERT_TRUE(all_read);
  EXPECT_EQ(sub.events().size(), kThreads * kEach);
  std::vector<std::size_t> next(kThreads, 0);
  for (const SseSubscriber::Event& event : sub.events()) {
    const std::size_t colon = event.data.find(':');
    const std::size_t t = std::stoul(event.data.substr(0, colon));
    ASSERT_LT(t, kThreads);
    ASSERT_LT(next[t], kEach);
    EXPECT_EQ(event.data.substr(colon + 1), std::to_string(next[t])) << "thread " << t << " out of order";
    EXPECT_EQ(seq_of(event.id), ids[t][next[t]]);
    ++next[t];
  }
}

// A Publisher left alive when its Server goes would later let go of its
// topic and slab into freed memory: the Server's destructor stops the
// process there instead, with a line naming the mistake.
TEST(PublisherDeathTest, AServerDestroyedBeforeItsPublishersEndsTheProcessSayingSo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto server = std::make_unique<server::Server>(server::Config{});
        auto kept = std::make_unique<server::Publisher>(server->publisher("kept"));
        server.reset();
      },
      "a Server destroyed while 1 of its Publishers live; destroy them first");
}

}  // namespace
}  // namespace sluice::test
