// Waiting on a condition the server reaches on its own threads (a charge
// given back, a connection closed, a hook run): polled every millisecond,
// for at most `limit` (ten seconds unless told), so a test waits on the
// condition itself and never on a guess of how long it takes.
#pragma once

#include <chrono>
#include <thread>

namespace sluice::test {

template <typename Done>
bool eventually(Done done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace sluice::test
