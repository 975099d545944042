// Packed frames let go of on threads other than their writer's, as loops
// release the frames a publisher thread packed. Host only (the Cortex-M
// firmware has no threads); run under ThreadSanitizer too.
#include "buf/slab_writer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::buf {
namespace {

// What a reader thread is handed: frames, each read and then let go of.
struct Handoff {
  std::mutex mutex;
  std::deque<FrameRef> frames;
  bool closed = false;

  void put(const FrameRef& frame) {
    const std::lock_guard lock(mutex);
    frames.push_back(frame);
  }
  bool take(FrameRef& out) {
    const std::lock_guard lock(mutex);
    if (frames.empty()) return !closed;
    out = std::move(frames.front());
    frames.pop_front();
    return true;
  }
};

TEST(SlabWriterThreads, FramesReleasedOnManyThreadsGiveEverySlabBack) {
  constexpr std::size_t kBlocks = 64;
  Pool pool({.block_count = kBlocks, .block_size = 1024, .reserve = 0});
  constexpr int kReaders = 4;
  constexpr int kFrames = 20000;
  Handoff handoffs[kReaders];
  std::atomic<int> bad{0};
  std::atomic<int> read{0};
  std::vector<std::thread> readers;
  for (Handoff& handoff : handoffs) {
    readers.emplace_back([&handoff, &bad, &read] {
      for (FrameRef frame; handoff.take(frame);) {
        if (!frame) {
          std::this_thread::yield();
          continue;
        }
        char bytes[64];
        const std::size_t n = frame.copy_to(bytes, sizeof bytes);
        for (std::size_t i = 1; i < n; ++i) {
          if (bytes[i] != bytes[0]) bad.fetch_add(1, std::memory_order_relaxed);
        }
        frame.reset();
        read.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  {
    SlabWriter slabs;
    for (int i = 0; i < kFrames;) {
      const std::string bytes(1 + i % 60, static_cast<char>('a' + i % 26));
      FrameBuilder builder(pool, slabs, bytes.size());
      builder.append(bytes);
      const FrameRef frame = builder.finish();
      if (!frame) {  // every block in flight: wait for the readers to let go
        std::this_thread::yield();
        continue;
      }
      // Each frame read on two threads, let go of by whichever is last.
      handoffs[i % kReaders].put(frame);
      handoffs[(i + 1) % kReaders].put(frame);
      ++i;
    }
  }
  for (Handoff& handoff : handoffs) {
    const std::lock_guard lock(handoff.mutex);
    handoff.closed = true;
  }
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(read.load(), 2 * kFrames);
  EXPECT_EQ(pool.free_blocks(), kBlocks);
}

}  // namespace
}  // namespace sluice::buf
