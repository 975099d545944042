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
  std::atomic<std::uint64_t> gapped{0};    // streams that saw at least one gap
  std::atomic<std::uint64_t> closed_after_gap{0};  // of those, streams the server then ended
  std::atomic<std::uint64_t> closed_events{0};     // events read by streams before they ended

  void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) { counter.fetch_add(n, std::memory_order_relaxed); }
};

struct ReaderContext {
  static constexpr std::size_t kReadBuffer = 256 * 1024;

  io::Loop loop;
  std::vector<char> buffer = std::vector<char>(kReadBuffer);
  Histogram latency;
  std::uint32_t latency_every = 1;         // sample one new stamp in this many
  std::atomic<std::uint64_t> record_from{0};  // now_ns() before which latency is not recorded (warm-up)
  StreamCounters& counters;
  std::uint64_t settled = 0;  // this thread's sessions that got their head or failed before it

  explicit ReaderContext(StreamCounters& shared) : counters(shared) {}

  // The stream head of one of this thread's sessions arrived.
  void mark_ready() {
    counters.add(counters.ready, 1);
    ++settled;
  }
  // A session ended: `before_head` when it never got its stream head,
  // `gaps` the sequence numbers it had found missing until then, `events`
  // what it had read (kept with the closed streams' when the server ended
  // it).
  void mark_finished(bool failed, bool before_head, std::uint64_t gaps, std::uint64_t events) {
    counters.add(failed ? counters.failed : counters.closed, 1);
    if (!failed) counters.add(counters.closed_events, events);
    if (before_head) ++settled;
    if (!failed && gaps != 0) counters.add(counters.closed_after_gap, 1);
  }
  // One stream of a session that carries several (HTTP/2) was ended by the
  // server, `after_gap` when it had found numbers missing: counted as a
  // session of its own would be, so that cut-offs show per stream.
  void mark_stream_ended(bool after_gap, std::uint64_t events) {
    counters.add(counters.closed, 1);
    counters.add(counters.closed_events, events);
    if (after_gap) counters.add(counters.closed_after_gap, 1);
  }
  // A session found `gaps` missing numbers, `first` when they are its first.
  void mark_gaps(std::uint64_t gaps, bool first) {
    counters.add(counters.gaps, gaps);
    if (first) counters.add(counters.gapped, 1);
  }

  // A session read an event with a new stamp at `now`: one in
  // latency_every of these is recorded, once the warm-up is over.
  void sample_latency(std::uint64_t now, std::uint64_t stamp) {
    if (--until_sample_ != 0) return;
    until_sample_ = latency_every;
    if (now >= record_from.load(std::memory_order_relaxed)) latency.record(now > stamp ? now - stamp : 0);
  }

 private:
  std::uint32_t until_sample_ = 1;
};

}  // namespace sluice::bench
