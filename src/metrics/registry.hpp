// Owns: Registry, the metrics of every loop of a server, and the sums a
// scrape reads.
//
// There is one LoopMetrics per loop, written only by that loop's thread,
// plus one more slot for what the application does itself (its publishes,
// by Server::publish or a Publisher; tokens checked for it), on any
// thread, a loop's included (from a hook). Threads count into it at once,
// each count one atomic add, so that publishers on several threads take no
// lock for their counts; a counter is all they update. A scrape reads every
// slot with relaxed loads and takes no lock: the loops never wait for it.
#pragma once

#include <cstddef>
#include <memory>

#include "metrics/loop_metrics.hpp"

namespace sluice::metrics {

class Registry {
 public:
  explicit Registry(std::size_t loops) : loops_(loops), slots_(new LoopMetrics[loops + 1]) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  [[nodiscard]] std::size_t loops() const { return loops_; }

  // Only loop `index`'s thread may update it.
  [[nodiscard]] LoopMetrics& loop(std::size_t index) { return slots_[index]; }
  [[nodiscard]] const LoopMetrics& loop(std::size_t index) const { return slots_[index]; }

  // Any thread: adds `n` to the off-loop slot's counter that
  // `pick(LoopMetrics&)` returns, unless it returns nullptr.
  template <class Pick>
  void count_off_loop(Pick pick, std::uint64_t n = 1) {
    if (Counter* counter = pick(slots_[loops_])) counter->add_shared(n);
  }

  // The sum over every slot of `get(const LoopMetrics&)`, a counter's or
  // gauge's value.
  template <class Get>
  [[nodiscard]] auto sum(Get get) const {
    decltype(get(slots_[0])) total{};
    for (std::size_t i = 0; i <= loops_; ++i) total += get(slots_[i]);
    return total;
  }

  template <const auto& Bounds>
  [[nodiscard]] HistogramTotals<Bounds> sum(Histogram<Bounds> LoopMetrics::*member) const {
    HistogramTotals<Bounds> totals;
    for (std::size_t i = 0; i <= loops_; ++i) totals.add(slots_[i].*member);
    return totals;
  }

 private:
  std::size_t loops_;
  std::unique_ptr<LoopMetrics[]> slots_;
};

}  // namespace sluice::metrics
