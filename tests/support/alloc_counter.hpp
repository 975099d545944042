// Owns: a count of heap allocations made through operator new and malloc's
// C++ path, for tests that prove a hot path allocates nothing, and of the
// bytes they hold, for tests that bound what an idle connection keeps. Linking this
// file replaces the global operator new of the test binary.
#pragma once

#include <cstdint>

namespace sluice::test {

// Allocations made by any thread since the program started.
[[nodiscard]] std::uint64_t allocations();

// Heap bytes held now (as malloc sized them), by every thread.
[[nodiscard]] std::int64_t live_heap_bytes();

// What a steady-state run saw: whether the warm-up rounds and the measured
// rounds all delivered, and the allocations made while the measured ran.
struct SteadyState {
  bool warmed = false;
  bool all_delivered = false;
  std::uint64_t allocations = 0;
};

// Runs `round` (true when everything that round sent arrived) `rounds`
// times so rings and buffers reach their size, then `rounds` times more
// while counting allocations.
template <class Round>
[[nodiscard]] SteadyState run_steady_state(int rounds, Round&& round) {
  SteadyState run;
  for (int i = 0; i < rounds; ++i) {
    if (!round()) return run;
  }
  run.warmed = true;
  run.all_delivered = true;
  const std::uint64_t before = allocations();
  for (int i = 0; i < rounds; ++i) run.all_delivered = round() && run.all_delivered;
  run.allocations = allocations() - before;
  return run;
}

}  // namespace sluice::test
