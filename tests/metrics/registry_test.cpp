#include "metrics/registry.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "alloc_counter.hpp"

namespace sluice::metrics {
namespace {

TEST(MetricsRegistry, SumsEveryLoopAndTheOffLoopSlot) {
  Registry registry(3);
  registry.loop(0).events_published.add(3);
  registry.loop(2).events_published.add(4);
  registry.count_off_loop([](LoopMetrics& m) { return &m.events_published; }, 10);
  registry.count_off_loop([](LoopMetrics&) -> Counter* { return nullptr; });  // counts nothing
  EXPECT_EQ(registry.sum([](const LoopMetrics& m) { return m.events_published.value(); }), 17u);

  registry.loop(0).connections_of(Transport::sse).inc();
  registry.loop(1).connections_of(Transport::sse).inc();
  registry.loop(1).connections_of(Transport::sse).dec();
  EXPECT_EQ(registry.sum([](const LoopMetrics& m) { return m.connections_of(Transport::sse).value(); }), 1);
}

// Application threads publishing at once all count into the off-loop
// slot: no count is lost between two of them.
TEST(MetricsRegistry, ThreadsWithoutALoopCountIntoItsSlotAtOnceAndLoseNothing) {
  constexpr std::uint64_t kThreads = 4;
  constexpr std::uint64_t kCounts = 100'000;
  Registry registry(1);
  std::vector<std::thread> threads;
  for (std::uint64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&registry] {
      for (std::uint64_t i = 0; i < kCounts; ++i) {
        registry.count_off_loop([](LoopMetrics& m) { return &m.events_published; });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(registry.sum([](const LoopMetrics& m) { return m.events_published.value(); }), kThreads * kCounts);
}

TEST(MetricsRegistry, SumsHistogramsBucketByBucket) {
  Registry registry(2);
  registry.loop(0).writev_events.observe(1);
  registry.loop(1).writev_events.observe(3);
  registry.loop(1).writev_events.observe(5000);
  const auto totals = registry.sum(&LoopMetrics::writev_events);
  EXPECT_EQ(totals.count(), 3u);
  EXPECT_EQ(totals.sum, 5004u);
  EXPECT_EQ(totals.buckets[0], 1u);                   // le 1
  EXPECT_EQ(totals.buckets[2], 1u);                   // le 4
  EXPECT_EQ(totals.buckets[kWritevEventBounds.size()], 1u);  // +Inf
}

// Loops never share a cache line, so one loop's updates do not slow another's.
TEST(MetricsRegistry, EachLoopsMetricsStartOnTheirOwnCacheLine) {
  Registry registry(4);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&registry.loop(i)) % 64, 0u);
  }
}

// Updating is what a loop does on its event path: it must not allocate.
TEST(MetricsRegistry, UpdatesAllocateNothing) {
  Registry registry(1);
  LoopMetrics& m = registry.loop(0);
  const std::uint64_t before = test::allocations();
  for (std::uint64_t i = 0; i < 1000; ++i) {
    m.events_published.add();
    m.delivered_to(Transport::ws).add(3);
    m.events_dropped[2].add();
    m.refused(Refusal::busy).add();
    m.connections_of(Transport::http).inc();
    m.subscribers.dec();
    m.writev_events.observe(i);
    m.event_age_at_flush_us.observe(i * 97);
    m.queue_depth.observe(i % 7);
  }
  EXPECT_EQ(test::allocations(), before);
  EXPECT_EQ(m.events_published.value(), 1000u);
}

// Several loops update while another thread scrapes: every sum the scraper
// sees is one the loops could have reached, and the final one is exact
// (ThreadSanitizer runs this too).
TEST(MetricsRegistry, ScrapeWhileLoopsUpdateSeesMonotonicSums) {
  constexpr std::size_t kLoops = 3;
  constexpr std::uint64_t kAdds = 100000;
  Registry registry(kLoops);
  std::vector<std::thread> loops;
  for (std::size_t i = 0; i < kLoops; ++i) {
    loops.emplace_back([&registry, i] {
      for (std::uint64_t n = 0; n < kAdds; ++n) registry.loop(i).events_delivered[0].add();
    });
  }
  const auto delivered = [&] { return registry.sum([](const LoopMetrics& m) { return m.events_delivered[0].value(); }); };
  std::uint64_t last = 0;
  bool monotonic = true;
  while (last < kLoops * kAdds) {
    const std::uint64_t now = delivered();
    monotonic = monotonic && now >= last && now <= kLoops * kAdds;
    last = now;
  }
  for (std::thread& t : loops) t.join();
  EXPECT_TRUE(monotonic);
  EXPECT_EQ(delivered(), kLoops * kAdds);
}

}  // namespace
}  // namespace sluice::metrics
