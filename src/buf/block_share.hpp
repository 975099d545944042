// Owns: BlockShare, how many blocks of the pool one kind of holder may
// hold at once, across every thread. The pool itself only keeps data off
// the control reserve: without a share, request bodies still arriving
// (each stream's first byte takes a whole block) could take every data
// block and leave none for events, so that publishes were refused and
// kept history evicted by a client that never finished a request.
#pragma once

#include <atomic>
#include <cstddef>

namespace sluice::buf {

class BlockShare {
 public:
  explicit BlockShare(std::size_t limit) : limit_(limit) {}
  BlockShare(const BlockShare&) = delete;
  BlockShare& operator=(const BlockShare&) = delete;

  // Counts one more block held, unless the share is full (then false).
  [[nodiscard]] bool take() {
    std::size_t held = held_.load(std::memory_order_relaxed);
    do {
      if (held >= limit_) return false;
    } while (!held_.compare_exchange_weak(held, held + 1, std::memory_order_relaxed));
    return true;
  }
  void give_back(std::size_t blocks) { held_.fetch_sub(blocks, std::memory_order_relaxed); }

  [[nodiscard]] std::size_t limit() const { return limit_; }
  [[nodiscard]] std::size_t held() const { return held_.load(std::memory_order_relaxed); }

 private:
  const std::size_t limit_;
  std::atomic<std::size_t> held_{0};
};

}  // namespace sluice::buf
