#include "metrics/cells.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace sluice::metrics {
namespace {

TEST(MetricsCells, CounterAddsUp) {
  Counter c;
  EXPECT_EQ(c.value(), 0u);
  c.add();
  c.add(41);
  EXPECT_EQ(c.value(), 42u);
}

TEST(MetricsCells, GaugeGoesUpAndDownAndCanBeSet) {
  Gauge g;
  g.inc();
  g.inc();
  g.dec();
  EXPECT_EQ(g.value(), 1);
  g.add(-3);
  EXPECT_EQ(g.value(), -2);
  g.set(17);
  EXPECT_EQ(g.value(), 17);
}

// One writer, one reader on another thread: the reader only ever sees values
// the writer stored, in order (ThreadSanitizer runs this too).
TEST(MetricsCells, ReaderOnAnotherThreadSeesAMonotonicCount) {
  Counter c;
  constexpr std::uint64_t kAdds = 200000;
  std::thread writer([&] {
    for (std::uint64_t i = 0; i < kAdds; ++i) c.add();
  });
  std::uint64_t last = 0;
  bool monotonic = true;
  while (last < kAdds) {
    const std::uint64_t now = c.value();
    monotonic = monotonic && now >= last;
    last = now;
  }
  writer.join();
  EXPECT_TRUE(monotonic);
  EXPECT_EQ(c.value(), kAdds);
}

}  // namespace
}  // namespace sluice::metrics
