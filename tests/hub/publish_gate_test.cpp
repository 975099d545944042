// Publisher flow control in the hub: a publish under a RoomRule is taken
// only while every loop is within the rule's lag and no fifo subscriber is
// short of room; a gave-up wait reaches each loop's subscribers; a waiting
// publisher is woken by the loop that makes room, and never misses it.
#include "hub/publish_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "hub_fixture.hpp"

namespace sluice::hub {
namespace {

using namespace std::chrono_literals;
using test::Collector;
using test::HubTest;

struct StallCounter : Collector {
  int stalls = 0;
  void stalled(std::uint32_t) override { ++stalls; }
};

using RoomRuleTest = HubTest;

TEST_F(RoomRuleTest, APublisherUnderTheRuleWaitsForALoopAsFarBehindAsTheRuleAllows) {
  Collector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  const RoomRule room{.max_lag = 2};
  EXPECT_EQ(book.publish("t", {"a"}, nullptr, nullptr, &room).status, HubStatus::ok);
  EXPECT_EQ(book.publish("t", {"b"}, nullptr, nullptr, &room).status, HubStatus::ok);
  // The loop has delivered none of the two: a third would put it 3 behind.
  const PublishResult refused = book.publish("t", {"c"}, nullptr, nullptr, &room);
  EXPECT_EQ(refused.status, HubStatus::busy);
  EXPECT_EQ(refused.id, 0u);
  // Without the rule the same publish is taken, as it always was.
  EXPECT_EQ(book.publish("t", {"c"}).status, HubStatus::ok);
  pump();
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(book.publish("t", {"d"}, nullptr, nullptr, &room).status, HubStatus::ok);
}

TEST_F(RoomRuleTest, ASubscriberShortOfRoomHoldsThePublisherUntilItHasRoomAgain) {
  Collector c;
  ASSERT_EQ(hub.subscribe("t", &c), HubStatus::ok);
  TopicRecord* record = hub.record_of("t");
  ASSERT_NE(record, nullptr);
  const RoomRule room{.max_lag = 100};
  Hub::mark_short_of_room(*record);
  EXPECT_EQ(book.publish("t", {"a"}, nullptr, nullptr, &room).status, HubStatus::busy);
  hub.mark_room_back(*record);
  EXPECT_EQ(book.publish("t", {"a"}, nullptr, nullptr, &room).status, HubStatus::ok);
  pump();
  EXPECT_EQ(c.ids, (std::vector<std::uint64_t>{1}));
}

TEST_F(RoomRuleTest, AWaitThatRanOutIsToldToEverySubscriberOnceAtTheLoopsNextDrain) {
  StallCounter a;
  StallCounter b;
  ASSERT_EQ(hub.subscribe("t", &a), HubStatus::ok);
  ASSERT_EQ(hub.subscribe("t", &b), HubStatus::ok);
  TopicRecord* record = hub.record_of("t");
  ASSERT_NE(record, nullptr);
  book.cut_stalled(*record);
  EXPECT_EQ(a.stalls, 0);  // the loop has not drained yet
  pump();
  EXPECT_EQ(a.stalls, 1);
  EXPECT_EQ(b.stalls, 1);
  // Told once: a later drain with news says nothing more.
  ASSERT_EQ(publish("t", {"x"}).status, HubStatus::ok);
  EXPECT_EQ(a.stalls, 1);
  EXPECT_EQ(a.ids, (std::vector<std::uint64_t>{1}));
}

TEST(PublishGate, ASleepWithNoRoomMadeEndsAtItsDeadline) {
  PublishGate gate;
  std::atomic<std::uint32_t> waiters{0};
  PublishGate::Wait wait(gate, waiters);
  EXPECT_EQ(waiters.load(), 1u);
  wait.arm();
  const auto deadline = PublishGate::Clock::now() + 20ms;
  EXPECT_FALSE(wait.sleep_until(deadline));
  EXPECT_GE(PublishGate::Clock::now(), deadline);
}

TEST(PublishGate, RoomMadeBetweenALookAndTheSleepEndsTheSleepAtOnce) {
  PublishGate gate;
  std::atomic<std::uint32_t> waiters{0};
  PublishGate::Wait wait(gate, waiters);
  wait.arm();
  gate.room_made(waiters);  // after the look, before the sleep
  EXPECT_TRUE(wait.sleep_until(PublishGate::Clock::now() + 10s));
}

TEST(PublishGate, NobodyCountedOnceTheWaitEnds) {
  PublishGate gate;
  std::atomic<std::uint32_t> waiters{0};
  { PublishGate::Wait wait(gate, waiters); }
  EXPECT_EQ(waiters.load(), 0u);
}

// A publisher thread waits for room a loop thread makes, many times over:
// each round the publisher looks (the loop's `made` count), sleeps if it
// found no room, and must be woken by the loop's room_made() whichever side
// comes first. A lost wake would leave it asleep to its 10 s deadline.
TEST(HubThreads, AWaitingPublisherIsWokenByEveryRoomTheLoopMakes) {
  constexpr int kRounds = 2000;
  PublishGate gate;
  std::atomic<std::uint32_t> waiters{0};
  std::atomic<int> made{0};
  std::atomic<int> taken{0};
  std::thread loop([&] {
    for (int i = 1; i <= kRounds; ++i) {
      // Room for one more when the publisher has taken the last.
      while (taken.load(std::memory_order_acquire) < i - 1) std::this_thread::yield();
      made.store(i, std::memory_order_release);
      gate.room_made(waiters);
    }
  });
  int timeouts = 0;
  {
    PublishGate::Wait wait(gate, waiters);
    for (int i = 1; i <= kRounds; ++i) {
      for (;;) {
        wait.arm();
        if (made.load(std::memory_order_acquire) >= i) break;
        if (!wait.sleep_until(PublishGate::Clock::now() + 10s)) ++timeouts;
      }
      taken.store(i, std::memory_order_release);
    }
  }
  loop.join();
  EXPECT_EQ(timeouts, 0);
}

}  // namespace
}  // namespace sluice::hub
