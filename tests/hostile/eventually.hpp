// Waiting on a condition the server reaches on its own threads (a charge
// given back, a connection closed): polled every millisecond, for at most
// ten seconds, so a test waits on the condition itself and never on a guess
// of how long it takes.
#pragma once

#include <chrono>
#include <thread>

namespace sluice::test {

template <typename Done>
bool eventually(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace sluice::test
