// Small events packed side by side into shared pool blocks: what the
// default pool keeps, what pool pressure still makes room for, and frames
// packed on publisher threads and let go of on loop threads.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "hub/hub.hpp"
#include "hub/topic_book.hpp"
#include "hub_fixture.hpp"

namespace sluice::hub {
namespace {

// Takes each event in one WebSocket form and holds it as a socket's queue
// would, for `hold` events, then lets them all go.
struct WsTaker : Subscriber {
  explicit WsTaker(std::size_t held_at_most = 0) : hold(held_at_most) {}
  void deliver(const Delivery& d) override {
    const buf::FrameRef& frame = d.frames.form(WireForm::ws_message);
    if (!frame) return;
    ++taken;
    if (hold == 0) return;
    held.push_back(frame);
    if (held.size() >= hold) held.clear();
  }
  void lost(std::uint32_t, std::uint64_t, std::uint64_t) override {}
  std::size_t hold;
  std::size_t taken = 0;
  std::vector<buf::FrameRef> held;
};

std::size_t kept_events(const TopicBook& book, const std::vector<std::string>& topics) {
  std::size_t kept = 0;
  for (const std::string& topic : topics) kept += book.find(topic)->history.size();
  return kept;
}

// The default pool (64 MiB of 4 KiB blocks; prefault off only to spare the
// test the page faults) and the default history bounds: 205 topics, each
// followed by a WebSocket subscriber, so every event keeps its WebSocket
// form. A block each would keep ~16,000 events; packed, all 205,000 are
// kept at once. The loop never drains, so no kept event may
// give way: a publish the pool could not take would be refused.
TEST(KeptEvents, TheDefaultPoolKeepsTwoHundredThousandSmallEvents) {
  buf::PoolConfig config;
  config.prefault = false;
  buf::Pool pool(config);
  ASSERT_TRUE(pool.ok());
  TopicBook book(pool, HubLimits{}, "ep");
  test::Watcher watcher;
  book.set_watcher(0, &watcher);
  Hub hub(book, 0);
  constexpr int kTopics = 205;
  ASSERT_GE(HubLimits{}.history_events, 1000u);
  std::vector<std::string> names;
  WsTaker subscriber;
  for (int t = 0; t < kTopics; ++t) {
    names.push_back("topic-" + std::to_string(t));
    ASSERT_EQ(hub.subscribe(names.back(), &subscriber, 0, WireForm::ws_message), HubStatus::ok);
  }
  const std::string data(64, 'd');
  for (int i = 0; i < 1000; ++i) {
    for (const std::string& name : names) ASSERT_EQ(book.publish(name, {data}).status, HubStatus::ok) << i;
  }
  EXPECT_EQ(kept_events(book, names), 205'000u);
  const buf::PoolStats stats = pool.stats();
  EXPECT_EQ(stats.data_refusals, 0u);
  // One frame of ~120 bytes an event (its WebSocket message, which holds
  // its data: no payload frame beside it): about 34 events a block.
  EXPECT_LT(stats.block_count - stats.free_blocks, 205'000u / 32);
}

// A short pool, fifty topics of small events and no subscriber: once the
// pool is full every publish must still be taken, kept events giving way
// (several may have to go before one slab is empty), and what is kept is
// many times what a block each would keep.
TEST(KeptEvents, UnderPoolPressureTheTopicsStillTakeNewEvents) {
  constexpr std::size_t kBlocks = 64;
  buf::Pool pool({.block_count = kBlocks, .block_size = 4096, .reserve = 2});
  {
    TopicBook book(pool, {.max_topics = 100}, "ep");
    const std::string data(64, 'p');
    std::vector<std::string> names;
    for (int t = 0; t < 50; ++t) names.push_back("t" + std::to_string(t));
    for (int i = 0; i < 20'000; ++i) ASSERT_EQ(book.publish(names[i % 50], {data}).status, HubStatus::ok) << i;
    EXPECT_LE(pool.free_blocks(), 4u);  // it was full
    EXPECT_GT(kept_events(book, names), 1'500u);  // ~34 to a block
    for (int i = 0; i < 500; ++i) ASSERT_EQ(book.publish("fresh", {data}).status, HubStatus::ok) << i;
    // Its own oldest give way in their turn too, one topic in 51.
    EXPECT_GT(book.find("fresh")->history.size(), 450u);
  }
  EXPECT_EQ(pool.free_blocks(), kBlocks);  // the book's writers and histories gave every block back
}

// Publisher threads pack events (the book's lent scratches); two loops on
// threads of their own deliver them to subscribers that hold some and let
// them go, so frames of one slab are released on every thread. The pool is
// short, so slabs are recycled all along. Every block comes back at the end.
TEST(HubThreads, PackedEventsLetGoOfOnLoopThreadsGiveEveryBlockBack) {
  constexpr std::size_t kBlocks = 64;
  buf::Pool pool({.block_count = kBlocks, .block_size = 1024, .reserve = 2});
  std::atomic<int> published{0};
  {
    TopicBook book(pool, {.history_events = 64}, "ep");
    test::ThreadLoop loops[2] = {test::ThreadLoop(book, 0), test::ThreadLoop(book, 1)};
    constexpr int kTopics = 4;
    WsTaker subscribers[2][kTopics] = {{WsTaker(3), WsTaker(5), WsTaker(7), WsTaker(11)},
                                      {WsTaker(2), WsTaker(4), WsTaker(6), WsTaker(8)}};
    for (unsigned l = 0; l < 2; ++l) {
      book.set_watcher(l, &loops[l]);
      for (int t = 0; t < kTopics; ++t) {
        ASSERT_EQ(loops[l].hub.subscribe("t" + std::to_string(t), &subscribers[l][t], 0, WireForm::ws_message),
                  HubStatus::ok);
      }
    }
    std::atomic<bool> done{false};
    std::vector<std::thread> drainers;
    for (auto& loop : loops) drainers.push_back(loop.drain_until(done));
    std::vector<std::thread> publishers;
    for (int p = 0; p < 3; ++p) {
      publishers.emplace_back([&book, &published, p] {
        for (int i = 0; i < 3000; ++i) {
          const std::string data(1 + (i * 7 + p) % 90, 'x');
          const HubStatus status = book.publish("t" + std::to_string((i + p) % kTopics), {data}).status;
          // busy: a loop has yet to deliver what the history would drop;
          // no_memory: what the subscribers hold filled the pool. Both wait
          // for the loops, never for good.
          ASSERT_TRUE(status == HubStatus::ok || status == HubStatus::busy || status == HubStatus::no_memory);
          if (status == HubStatus::ok) published.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    for (auto& t : publishers) t.join();
    done = true;
    for (auto& t : drainers) t.join();
    std::size_t taken = 0;
    for (auto& loop_subscribers : subscribers) {
      for (WsTaker& s : loop_subscribers) taken += s.taken;
    }
    EXPECT_GT(taken, 0u);
    for (auto& loop_subscribers : subscribers) {
      for (WsTaker& s : loop_subscribers) s.held.clear();
    }
  }
  EXPECT_GT(published.load(), 0);
  EXPECT_EQ(pool.free_blocks(), kBlocks);
}

}  // namespace
}  // namespace sluice::hub
