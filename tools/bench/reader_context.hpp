// Owns: ReaderContext, what the sessions of one client thread share: the
// thread's event loop, one read buffer for all its sockets (a buffer per
// connection would cost gigabytes at ten thousand connections), the
// latency histogram, and counters that the progress line reads while the
// thread runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "histogram.hpp"
#include "io/loop.hpp"

namespace sluice::bench {

// Updated once per read, not per event, with relaxed atomics: the progress
// line needs a recent figure, not an exact one.
struct StreamCounters {
  std::atomic<std::uint64_t> events{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> gaps{0};      // ids or sequence numbers skipped: events lost
  std::atomic<std::uint64_t> order_errors{0};  // WebSocket: a publisher's number repeated or stepped back
  std::atomic<std::uint64_t> notices{0};   // comment blocks (heartbeats, drop notices)
  std::atomic<std::uint64_t> ready{0};     // sessions whose stream head arrived
  std::atomic<std::uint64_t> failed{0};    // sessions that failed to connect or parse
  std::atomic<std::uint64_t> closed{0};    // streams the server ended

  void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) { counter.fetch_add(n, std::memory_order_relaxed); }
};

struct ReaderContext {
  static constexpr std::size_t kReadBuffer = 256 * 1024;

  io::Loop loop;
  std::vector<char> buffer = std::vector<char>(kReadBuffer);
  Histogram latency;
  std::uint32_t latency_every = 1;         // sample one event in this many
  std::atomic<std::uint64_t> record_from{0};  // now_ns() before which latency is not recorded (warm-up)
  StreamCounters& counters;

  explicit ReaderContext(StreamCounters& shared) : counters(shared) {}
};

}  // namespace sluice::bench
