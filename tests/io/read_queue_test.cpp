#include "io/read_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sluice::io {
namespace {

// Reads `bytes` in each turn it is given, and queues again while it has
// more (a socket that is never empty).
struct Flooder final : Reader {
  ReadQueue* queue = nullptr;
  std::vector<int>* order = nullptr;
  int name = 0;
  std::size_t bytes = 0;
  void read_turn() override {
    order->push_back(name);
    queue->spend(queue->turn(bytes, 16));
    queue->push_back(this);
  }
};

struct Line {
  explicit Line(std::size_t count, std::size_t bytes, std::size_t tick) : queue(tick), readers(count) {
    for (std::size_t i = 0; i < count; ++i) {
      readers[i] = Flooder{};
      readers[i].queue = &queue;
      readers[i].order = &order;
      readers[i].name = static_cast<int>(i);
      readers[i].bytes = bytes;
      queue.push_back(&readers[i]);
    }
  }
  ReadQueue queue;
  std::vector<Flooder> readers;
  std::vector<int> order;
};

TEST(ReadQueue, ServesTheLineInOrderUntilTheTickBudgetIsSpent) {
  Line line(5, 100, 250);
  line.queue.serve();
  EXPECT_EQ(line.order, (std::vector<int>{0, 1, 2}));  // 100 + 100 + the 50 left
  EXPECT_EQ(line.queue.left(), 0u);
  line.queue.start_tick();
  line.queue.serve();
  EXPECT_EQ(line.order, (std::vector<int>{0, 1, 2, 3, 4, 0}));
  EXPECT_EQ(line.queue.size(), 5u);
}

TEST(ReadQueue, AReaderThatQueuesAgainWaitsForTheNextTick) {
  Line line(2, 10, 1000);
  line.queue.serve();
  EXPECT_EQ(line.order, (std::vector<int>{0, 1}));
  EXPECT_EQ(line.queue.left(), 980u);
}

TEST(ReadQueue, TheFirstInLineIsServedEvenWhenTheBudgetIsSpent) {
  Line line(3, 100, 100);
  line.queue.spend(100);  // the sockets' own events took the tick
  line.queue.serve();
  EXPECT_EQ(line.order, (std::vector<int>{0}));
}

TEST(ReadQueue, ATurnIsCutToWhatTheTickHasLeftButNeverBelowTheFloor) {
  ReadQueue queue(1000);
  EXPECT_EQ(queue.turn(300, 16), 300u);
  queue.spend(900);
  EXPECT_EQ(queue.turn(300, 16), 100u);
  queue.spend(95);
  EXPECT_EQ(queue.turn(300, 16), 16u);
  queue.spend(1000);
  EXPECT_EQ(queue.left(), 0u);
  EXPECT_EQ(queue.turn(300, 16), 16u);
  queue.start_tick();
  EXPECT_EQ(queue.left(), 1000u);
}

TEST(ReadQueue, RemovingAReaderKeepsTheOthersInOrder) {
  Line line(4, 1, 1000);
  line.queue.remove(&line.readers[0]);
  line.queue.remove(&line.readers[2]);
  line.queue.remove(&line.readers[2]);  // not in line: a no-op
  EXPECT_FALSE(line.queue.queued(&line.readers[2]));
  EXPECT_EQ(line.queue.size(), 2u);
  line.queue.serve();
  EXPECT_EQ(line.order, (std::vector<int>{1, 3}));
  line.queue.remove(&line.readers[3]);
  line.queue.remove(&line.readers[1]);
  EXPECT_TRUE(line.queue.empty());
}

}  // namespace
}  // namespace sluice::io
