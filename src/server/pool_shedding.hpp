// Owns: PoolShedding, a loop's answer to a pool that refuses data while
// readers that stopped reading, or read slower than they are sent, hold it.
//
// Each stream may queue up to its send budget, and the budgets of all the
// streams a server takes add up to far more than the pool: a hundred
// readers that never read, each under its budget, can hold every data
// block, and from then on every publish is refused while none of them is
// ever cut off. So once a sweep, when the pool has been short and no kept
// event could give way (TopicBook::room_refusals(): the pool is held by
// what is queued, not by history) within twice pool.shed_after_ms, and
// less than a sixteenth of it is free, the loop cuts off every stream
// whose reader has been behind for pool.shed_after_ms
// (conn::OutQueue::look_behind(), Phase::shed_behind()): it has taken no
// whole data frame, or it reads but what waits behind the frame on the
// wire stays at a quarter of its byte budget (16 to 64 KiB) or more and
// does not come down (by 16 KiB below the lowest it reached), so that it
// holds its queue as surely as one that stopped. What it queued goes back
// to the pool at once, and it resumes from its last id as any slow
// consumer cut off does. A reader that takes a whole frame and drains its
// backlog within every pool.shed_after_ms is never shed: one draining a
// publisher's burst, however long it takes, or taking a large frame with
// little behind it. Nor is anyone while the pool is full only of kept
// history, which gives way to whatever needs room.
#pragma once

#include <chrono>
#include <cstdint>

#include "buf/pool.hpp"

namespace sluice::server {

class PoolShedding {
 public:
  // The looks in a row (one a sweep, every `period`) that find a reader
  // behind for at least `after_ms`; 0 when `after_ms` is 0 (never shed).
  [[nodiscard]] static std::uint32_t looks_for(std::int64_t after_ms, std::chrono::milliseconds period);

  // Once a sweep: true when `room_refusals` (the book's, shared by every
  // loop) moved at one of the last 2 x `looks` calls, this one included,
  // and `pool`'s free data blocks are fewer than a sixteenth of its blocks.
  [[nodiscard]] bool pressed(const buf::PoolStats& pool, std::uint64_t room_refusals, std::uint32_t looks);

 private:
  std::uint64_t refusals_seen_ = 0;
  std::uint32_t looks_since_refusal_ = UINT32_MAX;
};

}  // namespace sluice::server
