// Owns: run_until(), which turns an event loop until a condition holds or a
// deadline passes: tests wait on the real condition, with a generous bound,
// never on a sleep.
#pragma once

#include <chrono>

#include "io/loop.hpp"

namespace sluice::test {

template <typename Condition>
bool run_until(io::Loop& loop, Condition done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    loop.run_once(10);
  }
  return true;
}

}  // namespace sluice::test
