// Topic lifecycle: a topic nobody follows is freed when a new one needs its
// place, never while a subscriber, a publisher or a loop's inbox still
// holds it; a topic made again never reuses the ids of the one freed; a
// connection's allowance bounds the topics it brings into being.
#include "hub/topic_book.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "hub/event_frames.hpp"
#include "hub/hub.hpp"
#include "hub/publish_clock.hpp"
#include "hub_fixture.hpp"

namespace sluice::hub {
namespace {

// Keeps ids only, not frames (so what a test frees goes back to the pool),
// and fails the test on any loss.
struct IdCollector : Subscriber {
  std::vector<std::uint64_t> ids;
  void deliver(const Delivery& d) override { ids.push_back(d.id); }
  void lost(std::uint32_t, std::uint64_t, std::uint64_t) override { ADD_FAILURE() << "no event may be lost"; }
};

// The hub tests' book, pool and loop, with room for longer names and a
// history that may age.
struct Lifecycle : test::HubTest {
  explicit Lifecycle(std::int64_t ttl_ms = 0)
      : HubTest({.max_topics = 3, .max_topic_name = 32, .history_ttl_ms = ttl_ms}) {}
};

TEST_F(Lifecycle, SubscribingAndLeavingThousandsOfNamesLeavesRoomForANewTopic) {
  IdCollector c;
  for (int i = 0; i < 10'000; ++i) {
    const std::string name = "s" + std::to_string(i);
    ASSERT_EQ(hub.subscribe(name, &c), HubStatus::ok) << i;
    hub.unsubscribe(name, &c);
  }
  EXPECT_LE(book.topic_count(), 3u);
  EXPECT_GE(book.reclaimed(), 9'997u);
  EXPECT_EQ(book.publish("fresh", {"x"}).status, HubStatus::ok);
}

TEST_F(Lifecycle, PublishingToThousandsOfNamesLeavesRoomOnceTheirHistoryHasExpired) {
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_EQ(book.publish("p" + std::to_string(i), {"x"}).status, HubStatus::ok) << i;
  }
  EXPECT_LE(book.topic_count(), 3u);
  // The freed topics' history went back to the pool. What is left is each
  // kept topic's one event (its payload; with no SSE subscriber no SSE
  // form was built), packed with the others into the book's open slab:
  // never more than a block an event, however many topics came and went.
  EXPECT_GE(pool.free_blocks() + book.topic_count(), 256u);
  EXPECT_GE(pool.free_blocks(), 256u - 2);
  EXPECT_EQ(book.publish("fresh", {"x"}).status, HubStatus::ok);
}

// What the admin API reads: a topic's figures and its kept events with
// their publish times, without ever making a topic it is asked about.
TEST_F(Lifecycle, InspectingReadsTheKeptEventsInPublishOrderAndMakesNoTopic) {
  IdCollector c;
  ASSERT_EQ(hub.subscribe("news", &c), HubStatus::ok);
  const auto before = std::chrono::steady_clock::now();
  ASSERT_EQ(book.publish("news", {"one"}).status, HubStatus::ok);
  ASSERT_EQ(book.publish("news", {"two"}).status, HubStatus::ok);
  std::size_t subscribers = 0;
  std::vector<std::uint64_t> seqs;
  std::vector<std::chrono::steady_clock::time_point> times;
  EXPECT_TRUE(book.inspect_topic("news", [&](const TopicView& view) {
    subscribers = view.subscribers;
    EXPECT_EQ(view.published, 2u);
    EXPECT_GE(view.last_publish, before);
    for (std::size_t i = 0; i < view.history.size(); ++i) {
      seqs.push_back(view.history.at(i).seq);
      times.push_back(view.history.at(i).published);
      // Its frames carry the same time, for the age a flush records.
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          view.history.at(i).published.time_since_epoch()).count();
      EXPECT_EQ(view.history.at(i).sse.published_ns(), ns);
      EXPECT_EQ(view.history.at(i).payload.published_ns(), ns);
    }
  }));
  EXPECT_EQ(subscribers, 1u);
  ASSERT_EQ(seqs.size(), 2u);
  EXPECT_LT(seqs[0], seqs[1]);
  EXPECT_GE(times[0], before);
  EXPECT_LE(times[0], times[1]);

  const std::size_t topics = book.topic_count();
  EXPECT_FALSE(book.inspect_topic("missing", [](const TopicView&) { ADD_FAILURE() << "no such topic"; }));
  EXPECT_EQ(book.topic_count(), topics);
  std::vector<std::string> names;
  book.inspect_topics([&](const TopicView& view) { names.emplace_back(view.name); });
  EXPECT_EQ(names, std::vector<std::string>{"news"});
  pump();
  EXPECT_EQ(c.ids.size(), 2u);
  hub.unsubscribe("news", &c);
}

// A publisher's clock may give a reading some microseconds old
// (PublishClock); a topic stamps each event no earlier than the one ahead
// of it, so its times never go back, whoever published (the admin API
// looks its events up by time). The held reading needs an invariant x86
// counter; elsewhere each publish reads the clock and the order holds
// anyway.
TEST_F(Lifecycle, AnEventIsNeverStampedBeforeTheOneAheadOfIt) {
  FrameScratch held;
  held.clock = PublishClock(std::numeric_limits<std::uint64_t>::max());  // gives its first reading again
  ASSERT_EQ(book.publish("news", {"one"}, &held).status, HubStatus::ok);
  const auto after_first = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() == after_first) {
  }
  ASSERT_EQ(book.publish("news", {"two"}).status, HubStatus::ok);  // a reading of its own, later
  ASSERT_EQ(book.publish("news", {"three"}, &held).status, HubStatus::ok);
  std::vector<std::chrono::steady_clock::time_point> times;
  std::chrono::steady_clock::time_point last{};
  EXPECT_TRUE(book.inspect_topic("news", [&](const TopicView& view) {
    for (std::size_t i = 0; i < view.history.size(); ++i) times.push_back(view.history.at(i).published);
    last = view.last_publish;
  }));
  ASSERT_EQ(times.size(), 3u);
  EXPECT_LE(times[0], after_first);
  EXPECT_GT(times[1], after_first);
  EXPECT_GE(times[2], times[1]);
  EXPECT_EQ(last, times[2]);
}

TEST_F(Lifecycle, TheServersOwnTopicTakesNoneOfTheClientsPlaces) {
  IdCollector dashboard;
  ASSERT_EQ(hub.subscribe("$sys", &dashboard), HubStatus::ok);
  ASSERT_EQ(book.publish_server("$sys", {"snapshot"}).status, HubStatus::ok);
  IdCollector c[3];
  for (int i = 0; i < 3; ++i) ASSERT_EQ(hub.subscribe("t" + std::to_string(i), &c[i]), HubStatus::ok) << i;
  EXPECT_EQ(book.publish("t3", {"x"}).status, HubStatus::too_many_topics);
  // Once $sys is freed and made again, the count still leaves it out.
  hub.unsubscribe("$sys", &dashboard);
  hub.unsubscribe("t2", &c[2]);
  pump();
  ASSERT_EQ(hub.subscribe("t3", &c[2]), HubStatus::ok);
  EXPECT_EQ(book.find("$sys"), nullptr) << "freed to make room";
  ASSERT_EQ(book.publish_server("$sys", {"snapshot"}).status, HubStatus::ok);
  EXPECT_EQ(hub.subscribe("t4", &c[2]), HubStatus::too_many_topics);
  ASSERT_EQ(hub.subscribe("$sys", &dashboard), HubStatus::ok);
}

// Past a few, names of the server's form count as any topic: a route that
// let a client name one could not make topics without bound.
TEST_F(Lifecycle, OnlyAFewServerTopicsAreOutsideTheLimit) {
  IdCollector c;
  int made = 0;
  for (int i = 0; i < 20; ++i) {
    if (hub.subscribe("$t" + std::to_string(i), &c) == HubStatus::ok) ++made;
  }
  EXPECT_EQ(made, 8 + 3) << "eight outside topics.max, then its three places";
}

TEST_F(Lifecycle, AFollowedTopicIsNeverFreed) {
  IdCollector c[3];
  for (int i = 0; i < 3; ++i) ASSERT_EQ(hub.subscribe("t" + std::to_string(i), &c[i]), HubStatus::ok);
  EXPECT_EQ(book.publish("t3", {"x"}).status, HubStatus::too_many_topics);
  EXPECT_EQ(hub.subscribe("t3", &c[0]), HubStatus::too_many_topics);
  hub.unsubscribe("t1", &c[1]);
  EXPECT_EQ(book.publish("t3", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(book.find("t1"), nullptr);
  ASSERT_EQ(book.publish("t0", {"still here"}).status, HubStatus::ok);
  pump();
  EXPECT_EQ(c[0].ids.size(), 1u);
}

TEST_F(Lifecycle, ATopicInALoopsInboxIsKeptUntilTheLoopHasDrainedIt) {
  IdCollector c;
  ASSERT_EQ(hub.subscribe("a", &c), HubStatus::ok);
  ASSERT_EQ(book.publish("a", {"x"}).status, HubStatus::ok);  // "a" now waits in the loop's inbox
  hub.unsubscribe("a", &c);
  ASSERT_EQ(book.publish("b", {"x"}).status, HubStatus::ok);
  ASSERT_EQ(book.publish("c", {"x"}).status, HubStatus::ok);
  // "b" and "c" have no holder; "a" has the inbox entry.
  EXPECT_EQ(book.publish("d", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(book.publish("e", {"x"}).status, HubStatus::ok);
  EXPECT_NE(book.find("a"), nullptr);
  pump();
  EXPECT_EQ(book.publish("f", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(book.publish("g", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(book.find("a"), nullptr);
  EXPECT_TRUE(c.ids.empty());
}

TEST_F(Lifecycle, ResumingFromAFreedTopicIsAResetNeverASilentGap) {
  ASSERT_EQ(book.publish("a", {"1"}).id, 1u);
  ASSERT_EQ(book.publish("a", {"2"}).id, 2u);
  for (const char* other : {"b", "c", "d", "e"}) ASSERT_EQ(book.publish(other, {"x"}).status, HubStatus::ok);
  ASSERT_EQ(book.find("a"), nullptr);
  // The topic made again starts past every id the freed one gave.
  ASSERT_EQ(book.publish("a", {"3"}).status, HubStatus::ok);
  ASSERT_GE(book.find("a")->history.oldest_seq(), 3u);
  IdCollector missed_one;
  const ReplayResult r = hub.subscribe_after("a", &missed_one, 0, "ep:1");
  ASSERT_EQ(r.status, HubStatus::ok);
  EXPECT_STREQ(r.reset, "too-old");
  EXPECT_TRUE(missed_one.ids.empty());
}

TEST_F(Lifecycle, AClientThatSawTheLastEventOfAFreedTopicResumesWithoutReset) {
  ASSERT_EQ(book.publish("a", {"1"}).id, 1u);
  for (const char* other : {"b", "c", "d"}) ASSERT_EQ(book.publish(other, {"x"}).status, HubStatus::ok);
  ASSERT_EQ(book.find("a"), nullptr);
  IdCollector c;
  const ReplayResult r = hub.subscribe_after("a", &c, 0, "ep:1");
  ASSERT_EQ(r.status, HubStatus::ok);
  EXPECT_EQ(r.reset, nullptr);
  const PublishResult next = book.publish("a", {"next"});
  pump();
  ASSERT_EQ(c.ids.size(), 1u);
  EXPECT_EQ(c.ids[0], next.id);
}

TEST_F(Lifecycle, AConnectionsAllowanceBoundsTheTopicsItMakes) {
  TopicAllowance allowance{2};
  EXPECT_EQ(hub.publish("x", {"1"}, &allowance).status, HubStatus::ok);
  IdCollector c;
  EXPECT_EQ(hub.subscribe("y", &c, 0, WireForm::sse, &allowance), HubStatus::ok);
  EXPECT_EQ(hub.publish("z", {"1"}, &allowance).status, HubStatus::too_many_created);
  EXPECT_EQ(hub.subscribe("z", &c, 0, WireForm::sse, &allowance), HubStatus::too_many_created);
  // Topics that exist cost nothing.
  EXPECT_EQ(hub.publish("x", {"2"}, &allowance).status, HubStatus::ok);
  EXPECT_EQ(hub.publish("y", {"2"}, &allowance).status, HubStatus::ok);
}

// One address may be the first follower of only so many topics, over all
// its connections, however the topics were made (a client that may publish
// could make them by a publish first); another address, and topics some
// address follows already, are not held to it; a topic freed gives its
// place back.
struct PerAddress : test::HubTest {
  PerAddress() : HubTest({.max_topics = 10, .max_topic_name = 32, .max_first_followed_per_address = 2}) {}
};

TEST_F(PerAddress, AnAddressIsTheFirstFollowerOfOnlySoManyTopics) {
  TopicAllowance first{100, 7};
  TopicAllowance second{100, 7};  // another connection from the same address
  TopicAllowance other{100, 9};
  IdCollector c;
  EXPECT_EQ(hub.subscribe("a", &c, 0, WireForm::sse, &first), HubStatus::ok);
  ASSERT_EQ(hub.publish("b", {"x"}, &second).status, HubStatus::ok);  // a publish charges nobody
  EXPECT_EQ(hub.subscribe("b", &c, 1, WireForm::sse, &second), HubStatus::ok);
  EXPECT_EQ(hub.subscribe("c", &c, 2, WireForm::sse, &first), HubStatus::too_many_from_address);
  ASSERT_EQ(hub.publish("d", {"x"}, &first).status, HubStatus::ok);
  EXPECT_EQ(hub.subscribe("d", &c, 2, WireForm::sse, &first), HubStatus::too_many_from_address);
  EXPECT_EQ(hub.subscribe("c", &c, 2, WireForm::sse, &other), HubStatus::ok);
  IdCollector d;
  EXPECT_EQ(hub.subscribe("c", &d, 0, WireForm::sse, &second), HubStatus::ok);  // charged to `other`
  hub.unsubscribe("a", &c);
  EXPECT_EQ(hub.subscribe("e", &c, 3, WireForm::sse, &first), HubStatus::ok);  // "a" freed for it
  EXPECT_EQ(book.find("a"), nullptr);
}

TEST_F(PerAddress, AnAllowanceWithNoAddressIsNotHeld) {
  TopicAllowance nameless{100};
  IdCollector c;
  for (const char* topic : {"a", "b", "c", "d"}) {
    EXPECT_EQ(hub.subscribe(topic, &c, 0, WireForm::sse, &nameless), HubStatus::ok) << topic;
  }
}

struct LifecycleWithTtl : Lifecycle {
  LifecycleWithTtl() : Lifecycle(50) {}
};

TEST_F(LifecycleWithTtl, ATopicWithRecentEventsIsKeptForTheTtl) {
  for (const char* t : {"a", "b", "c"}) ASSERT_EQ(book.publish(t, {"x"}).status, HubStatus::ok);
  EXPECT_EQ(book.publish("d", {"x"}).status, HubStatus::too_many_topics);
  // Waits for the history to age (the condition itself, bounded).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  HubStatus status = HubStatus::too_many_topics;
  while (status == HubStatus::too_many_topics && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    status = book.publish("d", {"x"}).status;
  }
  EXPECT_EQ(status, HubStatus::ok);
}

// Loops subscribe and leave many names and keep one subscription each,
// while other threads publish to that topic and churn through new names,
// so records are freed and made all the time. The held topics must never be
// freed under their subscribers (every event arrives, in order), and no
// loop may read a freed record (run under TSan and ASan).
TEST(HubThreads, ReclaimingRacesSubscribesAndDrains) {
  buf::Pool pool{{.block_count = 16384, .block_size = 256, .reserve = 4}};
  TopicBook book(pool, {.max_topics = 8, .history_events = 100000, .history_bytes = 64 << 20, .history_ttl_ms = 0},
                 "ep");
  test::ThreadLoop loops[2] = {test::ThreadLoop(book, 0), test::ThreadLoop(book, 1)};
  IdCollector held[2];
  for (unsigned i = 0; i < 2; ++i) {
    book.set_watcher(i, &loops[i]);
    ASSERT_EQ(loops[i].hub.subscribe("held" + std::to_string(i), &held[i]), HubStatus::ok);
  }
  constexpr int kEach = 2000;
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  threads.emplace_back([&book] {
    for (int i = 0; i < kEach; ++i) {
      for (const char* t : {"held0", "held1"}) ASSERT_EQ(book.publish(t, {"e"}).status, HubStatus::ok);
    }
  });
  std::atomic<int> churned{0};
  threads.emplace_back([&book, &done, &churned] {
    for (int i = 0; !done.load(); ++i) {
      if (book.publish("p" + std::to_string(i % 64), {"c"}).status == HubStatus::ok) churned.fetch_add(1);
    }
  });
  for (unsigned l = 0; l < 2; ++l) {
    threads.emplace_back([&loops, &done, l] {
      IdCollector visitor;
      test::ThreadLoop& loop = loops[l];
      for (int i = 0; !done.load(); ++i) {
        const std::string name = "p" + std::to_string((i * 7 + static_cast<int>(l)) % 64);
        if (loop.hub.subscribe(name, &visitor) == HubStatus::ok) {
          loop.drain();
          loop.hub.unsubscribe(name, &visitor);
        }
        loop.drain();
      }
      loop.drain();
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  threads[0].join();
  // The loops' threads own their hubs; the held collectors are read only
  // once they have stopped.
  while (std::chrono::steady_clock::now() < deadline && churned.load() < 2000) std::this_thread::yield();
  done = true;
  for (std::size_t t = 1; t < threads.size(); ++t) threads[t].join();
  for (auto& loop : loops) loop.drain();
  EXPECT_GE(churned.load(), 2000);
  EXPECT_GT(book.reclaimed(), 0u);
  EXPECT_LE(book.topic_count(), 8u);
  for (const IdCollector& c : held) {
    ASSERT_EQ(c.ids.size(), static_cast<std::size_t>(kEach));
    for (std::size_t i = 0; i < c.ids.size(); ++i) ASSERT_EQ(c.ids[i], i + 1);
  }
}

}  // namespace
}  // namespace sluice::hub
