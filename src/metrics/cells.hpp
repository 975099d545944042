// Owns: Counter and Gauge, the cells a loop updates on its event path.
//
// Each cell has one writer, the loop that owns it: an update is a relaxed
// load and a relaxed store (a plain add on x86 and ARM, no locked
// read-modify-write, no fence), and a scrape on another thread reads it with
// a relaxed load. The atomic type is there so that the concurrent read is
// defined and never sees a torn value, not to order anything: a scrape that
// misses the last few updates shows them next time.
//
// The one cell with several writers is a counter of Registry's off-loop
// slot: the application's publishing threads add to it with add_shared(),
// an atomic read-modify-write, and with nothing else.
#pragma once

#include <atomic>
#include <cstdint>

namespace sluice::metrics {

// Only ever goes up. One writer, or writers that all use add_shared().
class Counter {
 public:
  void add(std::uint64_t n = 1) { value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  void add_shared(std::uint64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// Goes up and down. One writer: a loop counts its own connections and
// subscriptions up and down, and the scrape adds the loops' cells.
class Gauge {
 public:
  void add(std::int64_t n) { value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  void inc() { add(1); }
  void dec() { add(-1); }
  void set(std::int64_t v) { value_.store(v, std::memory_order_relaxed); }
  [[nodiscard]] std::int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

}  // namespace sluice::metrics
