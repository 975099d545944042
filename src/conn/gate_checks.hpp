// Owns: GateChecks, one loop's list of connections whose latency gate holds
// data back, and the timer that flushes each again when its gate asks.
//
// The kernel raises no event when a reader reads bytes we chose not to
// follow with more: the socket has room all along. So a gate that holds
// data names a time to look again, and this list flushes its connection
// then. The timer exists only while some gate holds (it goes after a second
// without any), so an idle loop is not woken; each tick looks at no more
// than kMaxPerTick due gates, so a crowd of held readers costs the loop a
// bounded share of each millisecond and waits a little longer instead.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "io/loop.hpp"

namespace sluice::conn {

class LatencyGate;

class GateChecks {
 public:
  using Clock = io::Loop::Clock;
  static constexpr std::chrono::milliseconds kPeriod{1};
  static constexpr std::size_t kMaxPerTick = 256;

  explicit GateChecks(io::Loop& loop);
  ~GateChecks();
  GateChecks(const GateChecks&) = delete;
  GateChecks& operator=(const GateChecks&) = delete;

  // Flushes `gate`'s connection at `due` or soon after (the timer's tick);
  // an earlier time already asked for stands.
  void schedule(LatencyGate& gate, Clock::time_point due);
  // Forgets `gate` (it is being destroyed, or holds nothing any more).
  void cancel(LatencyGate& gate);

  [[nodiscard]] std::size_t waiting() const { return items_.size(); }

 private:
  struct Item {
    LatencyGate* gate;
    Clock::time_point due;
  };

  void run(Clock::time_point now);
  void remove(std::size_t index);

  io::Loop& loop_;
  std::vector<Item> items_;
  io::Loop::TimerId timer_ = 0;
  Clock::time_point last_busy_{};
};

}  // namespace sluice::conn
