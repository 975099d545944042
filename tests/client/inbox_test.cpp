#include "inbox.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "client_test_support.hpp"

namespace sluice::client::detail {
namespace {

using namespace std::chrono_literals;
using client::test::wait_until;

Event message(std::string topic, std::string id, std::string data = "d") {
  Event e;
  e.topic = std::move(topic);
  e.id = std::move(id);
  e.type = "message";
  e.data = std::move(data);
  return e;
}

Event notice(EventKind kind, std::string topic) {
  Event e = message(std::move(topic), "");
  e.kind = kind;
  return e;
}

ClientOptions queue_of(std::size_t events, std::size_t bytes = 1 << 20) {
  ClientOptions o;
  o.queue_events = events;
  o.queue_bytes = bytes;
  return o;
}

ClientOptions latest_of(std::size_t slots) {
  ClientOptions o;
  o.delivery = Delivery::latest;
  o.latest_slots = slots;
  return o;
}

TEST(Inbox, QueueIsFifoAndRecyclesBuffers) {
  Inbox inbox(queue_of(4));
  for (int i = 1; i <= 3; ++i) {
    Event e = message("t", std::to_string(i));
    ASSERT_TRUE(inbox.push(e));
  }
  Event out;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
    EXPECT_EQ(out.id, std::to_string(i));
  }
  EXPECT_EQ(inbox.pop(out, 1ms), NextStatus::timeout);
  ClientStats stats;
  inbox.fill_stats(stats);
  EXPECT_EQ(stats.events, 3u);
  EXPECT_EQ(stats.taken, 3u);
  EXPECT_EQ(stats.queued, 0u);
  EXPECT_EQ(stats.queued_bytes, 0u);
}

TEST(Inbox, AFullQueueStopsTheReaderUntilTheApplicationTakesOne) {
  Inbox inbox(queue_of(2));
  std::thread reader([&] {
    for (int i = 1; i <= 3; ++i) {
      Event e = message("t", std::to_string(i));
      ASSERT_TRUE(inbox.push(e));
    }
  });
  ClientStats stats;
  ASSERT_TRUE(wait_until([&] {
    inbox.fill_stats(stats);
    return stats.reader_waiting;
  }));
  EXPECT_EQ(stats.queued, 2u);
  Event out;
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  reader.join();
  inbox.fill_stats(stats);
  EXPECT_FALSE(stats.reader_waiting);
  EXPECT_EQ(stats.reader_waits, 1u);
  for (const char* id : {"2", "3"}) {
    ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
    EXPECT_EQ(out.id, id);
  }
}

TEST(Inbox, TheByteBudgetBoundsTheQueueButOneLargeEventPasses) {
  Inbox inbox(queue_of(100, 10));
  Event big = message("t", "1", std::string(50, 'x'));
  ASSERT_TRUE(inbox.push(big));  // alone, it may exceed the budget
  std::thread reader([&] {
    Event small = message("t", "2", "y");
    ASSERT_TRUE(inbox.push(small));
  });
  ClientStats stats;
  ASSERT_TRUE(wait_until([&] {
    inbox.fill_stats(stats);
    return stats.reader_waiting;
  }));
  Event out;
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  reader.join();
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.id, "2");
}

TEST(Inbox, CancelReleasesAWaitingReaderAndRefusesMore) {
  Inbox inbox(queue_of(1));
  Event first = message("t", "1");
  ASSERT_TRUE(inbox.push(first));
  bool pushed = true;
  std::thread reader([&] {
    Event e = message("t", "2");
    pushed = inbox.push(e);
  });
  ClientStats stats;
  ASSERT_TRUE(wait_until([&] {
    inbox.fill_stats(stats);
    return stats.reader_waiting;
  }));
  inbox.cancel();
  reader.join();
  EXPECT_FALSE(pushed);
  Event out;
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);  // what arrived before stays readable
  EXPECT_EQ(inbox.pop(out, 0ms), NextStatus::ended);
}

TEST(Inbox, CloseEndsOnceEverythingIsTaken) {
  Inbox inbox(queue_of(4));
  Event e = message("t", "1");
  ASSERT_TRUE(inbox.push(e));
  inbox.close();
  Event out;
  EXPECT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(inbox.pop(out, 10s), NextStatus::ended);  // at once, not after the wait
}

TEST(Inbox, APopWaitingForAnEventGetsIt) {
  Inbox inbox(queue_of(4));
  std::thread reader([&] {
    Event e = message("t", "late");
    ASSERT_TRUE(inbox.push(e));
  });
  Event out;
  EXPECT_EQ(inbox.pop(out, 10s), NextStatus::event);
  EXPECT_EQ(out.id, "late");
  reader.join();
}

TEST(Inbox, LatestKeepsTheNewestPerTopicAndCountsWhatItReplaced) {
  Inbox inbox(latest_of(8));
  for (int i = 1; i <= 5; ++i) {
    Event a = message("a", std::to_string(i));
    ASSERT_TRUE(inbox.push(a));
  }
  Event b = message("b", "1");
  ASSERT_TRUE(inbox.push(b));
  Event out;
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.topic, "a");
  EXPECT_EQ(out.id, "5");
  EXPECT_EQ(out.overwritten, 4u);
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.topic, "b");
  EXPECT_EQ(out.overwritten, 0u);
  EXPECT_EQ(inbox.pop(out, 0ms), NextStatus::timeout);
  Event again = message("a", "6");
  ASSERT_TRUE(inbox.push(again));
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.id, "6");
  EXPECT_EQ(out.overwritten, 0u);
  ClientStats stats;
  inbox.fill_stats(stats);
  EXPECT_EQ(stats.overwritten, 4u);
  EXPECT_EQ(stats.events, 7u);
  EXPECT_EQ(stats.queued_bytes, 0u);
}

TEST(Inbox, LatestNeverOverwritesNoticesAndHandsThemOutFirst) {
  Inbox inbox(latest_of(8));
  Event m = message("a", "1");
  ASSERT_TRUE(inbox.push(m));
  Event d1 = notice(EventKind::dropped, "a");
  Event d2 = notice(EventKind::dropped, "a");
  Event r = notice(EventKind::reset, "a");
  ASSERT_TRUE(inbox.push(d1));
  ASSERT_TRUE(inbox.push(d2));
  ASSERT_TRUE(inbox.push(r));
  Event out;
  for (EventKind want : {EventKind::dropped, EventKind::dropped, EventKind::reset, EventKind::message}) {
    ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
    EXPECT_EQ(out.kind, want);
  }
}

TEST(Inbox, LatestByACustomKey) {
  ClientOptions options = latest_of(8);
  options.latest_key = [](const Event& e) { return std::string_view(e.data).substr(0, 1); };
  Inbox inbox(options);
  for (const char* data : {"x1", "y1", "x2", "y2", "x3"}) {
    Event e = message("t", data, data);
    ASSERT_TRUE(inbox.push(e));
  }
  Event out;
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.data, "x3");
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.data, "y2");
}

TEST(Inbox, LatestReusesReadSlotsAndWaitsWhenEverySlotIsUnread) {
  Inbox inbox(latest_of(2));
  Event a = message("a", "1");
  Event b = message("b", "1");
  ASSERT_TRUE(inbox.push(a));
  ASSERT_TRUE(inbox.push(b));
  bool pushed = false;
  std::thread reader([&] {
    Event c = message("c", "1");
    pushed = inbox.push(c);
  });
  ClientStats stats;
  ASSERT_TRUE(wait_until([&] {
    inbox.fill_stats(stats);
    return stats.reader_waiting;
  }));
  Event out;
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.topic, "a");
  reader.join();
  EXPECT_TRUE(pushed);
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.topic, "b");
  ASSERT_EQ(inbox.pop(out, 0ms), NextStatus::event);
  EXPECT_EQ(out.topic, "c");
}

}  // namespace
}  // namespace sluice::client::detail
