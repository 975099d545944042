// Owns: MpscQueue, the bounded queue through which other threads hand work
// to a loop: many producers, one consumer (the loop), no lock. Each cell
// carries a sequence number that says whose turn it is (Vyukov's bounded
// queue), so a producer claims a cell with one compare-and-swap and the
// consumer takes it with plain loads and stores. Items from one producer
// come out in the order it pushed them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace sluice::io {

template <typename T>
class MpscQueue {
 public:
  // Holds at least `capacity` items (rounded up to a power of two).
  explicit MpscQueue(std::size_t capacity) : mask_(round_up(capacity) - 1), cells_(new Cell[mask_ + 1]) {
    for (std::size_t i = 0; i <= mask_; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }

  // Any thread. Returns false, taking nothing, when the queue is full.
  [[nodiscard]] bool try_push(T&& value) {
    std::size_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      const std::size_t seq = cell.sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          cell.value = std::move(value);
          cell.sequence.store(pos + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  // The consumer's thread only. Returns false when the queue is empty.
  [[nodiscard]] bool try_pop(T& out) {
    Cell& cell = cells_[head_ & mask_];
    if (cell.sequence.load(std::memory_order_acquire) != head_ + 1) return false;
    out = std::move(cell.value);
    cell.sequence.store(head_ + mask_ + 1, std::memory_order_release);
    ++head_;
    return true;
  }

  [[nodiscard]] std::size_t capacity() const { return mask_ + 1; }

 private:
  struct Cell {
    std::atomic<std::size_t> sequence;
    T value{};
  };

  static std::size_t round_up(std::size_t n) {
    std::size_t p = 2;
    while (p < n) p *= 2;
    return p;
  }

  const std::size_t mask_;
  std::unique_ptr<Cell[]> cells_;
  alignas(64) std::atomic<std::size_t> tail_{0};  // producers' claim counter
  alignas(64) std::size_t head_ = 0;              // the consumer's position
};

}  // namespace sluice::io
