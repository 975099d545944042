// The heap-growth check issue #4 closed without: stalled and slow
// subscribers under each policy while a publisher pushes thousands of
// events, far past every budget, and the server's memory stays where its
// limits put it. Three figures, each of which a queue that grew with the
// events published would break:
//  - pool blocks in use (every queued or kept event holds blocks) never pass
//    what the history and the connections' send budgets allow;
//  - after warm-up, publishing allocates nothing from the heap (a new
//    connection's queue grows once, to its budget);
//  - live heap bytes at the end of each phase stay flat, to a few bytes per
//    event published (ASan and TSan count them with their own allocator).
// The server runs one loop, so once the fast reader has a batch, every
// subscriber has been handed it too: that, not a sleep, is the sync.
#include <malloc.h>
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "test_client.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// The sanitizer runtime's own count of live heap bytes (from
// <sanitizer/allocator_interface.h>, which g++ does not install).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#define SLUICE_SANITIZER_HEAP 1
#endif

namespace sluice::test {
namespace {

constexpr std::size_t kEventBytes = 512;
constexpr std::size_t kBatch = 16;           // events per write; their frames fit the fast reader's budget
constexpr int kWarmupBatches = 20;
constexpr int kPhases = 4;
constexpr int kBatchesPerPhase = 50;         // 800 events a phase, 3,520 in all
constexpr int kStalled = 3;                  // subscribers that never read
constexpr std::size_t kSlowReadBytes = 2048;  // what the slow reader takes per batch (of ~9 KiB)
constexpr std::size_t kHistoryEvents = 64;
constexpr std::size_t kBudgetFrames = 32;

std::size_t live_heap_bytes() {
#ifdef SLUICE_SANITIZER_HEAP
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = ::mallinfo2();  // glibc sums every arena
  return info.uordblks + info.hblkhd;
#endif
}

server::Config memory_config() {
  server::Config config;
  config.threads = 1;
  config.tcp_send_buffer = 4096;  // the kernel holds little: events wait in the server, under its budgets
  config.tcp_notsent_lowat = 1024;
  config.linger_timeout_ms = 10000;  // cut-off readers close when the test closes them, never mid-phase
  config.heartbeat_ms = 3'600'000;  // no comment blocks among the fast reader's events
  config.connection.send.max_bytes = 16 * 1024;
  config.connection.send.max_frames = kBudgetFrames;
  config.hub.history_events = kHistoryEvents;
  config.hub.history_bytes = 64 * 1024;
  config.pool.block_count = 4096;  // room for far more than the bound below, so the bound is what is tested
  return without_system_feed(config);
}

// Blocks the limits allow at once: each kept event holds its SSE frame and
// its replay payload (one block each at this size), each connection its
// data and control lanes plus the frame on the wire, and a few replies.
std::size_t blocks_allowed(const server::Config& config, std::size_t connections) {
  const auto& send = config.connection.send;
  return 2 * config.hub.history_events + connections * (send.max_frames + send.max_control_frames + 1) + 32;
}

// Counts reply heads on the publisher's connection, and the ones that are
// not 2xx. A stack buffer and no strings: reading allocates nothing.
class ReplyCounter {
 public:
  bool read(int fd, std::uint64_t want) {
    char chunk[16384];
    while (ok + refused < want) {
      const ssize_t n = wait_and_read(fd, chunk, sizeof chunk);
      if (n <= 0) return false;
      for (ssize_t i = 0; i < n; ++i) take(chunk[i]);
    }
    return true;
  }
  std::uint64_t ok = 0;
  std::uint64_t refused = 0;

 private:
  static constexpr std::string_view kHead = "HTTP/1.1 ";
  static ssize_t wait_and_read(int fd, char* into, std::size_t size) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return -1;
    return ::recv(fd, into, size, 0);
  }
  void take(char c) {
    if (matched_ == kHead.size()) {
      ++(c == '2' ? ok : refused);
      matched_ = 0;
    } else if (c == kHead[matched_]) {
      ++matched_;
    } else {
      matched_ = c == kHead[0] ? 1 : 0;
    }
  }
  std::size_t matched_ = 0;
};

// Counts events ("\n\n") on a stream that receives every one of them.
class EventCounter {
 public:
  bool read(int fd, std::uint64_t want) {
    char chunk[16384];
    while (seen < want) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) return false;
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      for (ssize_t i = 0; i < n; ++i) {
        if (prev_ == '\n' && chunk[i] == '\n') ++seen;
        prev_ = chunk[i];
      }
    }
    return true;
  }
  std::uint64_t seen = 0;

 private:
  char prev_ = 0;
};

struct Figures {
  std::size_t max_blocks_in_use = 0;
  std::array<std::uint64_t, kPhases> allocations{};
  std::array<std::size_t, kPhases> live_heap{};
  std::uint64_t events = 0;
  bool delivered = true;
};

class SlowConsumersUnderLoad : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    server_ = std::make_unique<RunningServer>(memory_config());
    fast_ = std::make_unique<SseSubscriber>(server_->port(), "/sse/mem");
    ASSERT_TRUE(fast_->opened());
    publisher_ = std::make_unique<TestClient>(server_->port());
    for (std::size_t i = 0; i < kBatch; ++i) {
      batch_ += "POST /pub/mem HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(kEventBytes) + "\r\n\r\n" +
                std::string(kEventBytes, 'm');
    }
  }

  // Fresh stalled and slow subscribers under the policy: those the policy
  // cut off or closed in the last phase are replaced, so every phase starts
  // with the same connections and the same pressure.
  void open_slow_subscribers() {
    const std::string target = std::string("/sse/mem?policy=") + GetParam();
    slow_.clear();
    for (int i = 0; i <= kStalled; ++i) {
      slow_.push_back(std::make_unique<SseSubscriber>(server_->port(), target, 4096));
      ASSERT_TRUE(slow_.back()->opened());
    }
    // The server closes the connections just dropped in its own time; it
    // has done so before a phase counts allocations, so that whatever their
    // teardown does is not counted in the phase.
    const std::uint64_t open_streams = kStalled + 2;  // these and the fast reader
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (server_->server().stats().streams != open_streams && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(server_->server().stats().streams, open_streams);
  }

  // One batch published, answered, delivered to the fast reader; the slow
  // reader takes a little; the pool is sampled. Allocates nothing.
  bool one_batch(Figures& figures) {
    publisher_->send(batch_);
    bool ok = replies_.read(publisher_->fd(), figures.events + kBatch);
    ok = fast_events_.read(fast_->client().fd(), figures.events + kBatch) && ok;
    figures.events += kBatch;
    char slow_chunk[kSlowReadBytes];
    (void)::recv(slow_.front()->client().fd(), slow_chunk, sizeof slow_chunk, MSG_DONTWAIT);
    const server::PoolStats pool = server_->server().pool_stats();
    figures.max_blocks_in_use = std::max(figures.max_blocks_in_use, pool.block_count - pool.free_blocks);
    return ok;
  }

  Figures run() {
    Figures figures;
    open_slow_subscribers();
    for (int i = 0; i < kWarmupBatches; ++i) figures.delivered = one_batch(figures) && figures.delivered;
    for (int phase = 0; phase < kPhases; ++phase) {
      if (phase > 0) open_slow_subscribers();
      const std::uint64_t before = allocations();
      for (int i = 0; i < kBatchesPerPhase; ++i) figures.delivered = one_batch(figures) && figures.delivered;
      figures.allocations[phase] = allocations() - before;
      figures.live_heap[phase] = live_heap_bytes();
    }
    return figures;
  }

  std::unique_ptr<RunningServer> server_;
  std::unique_ptr<SseSubscriber> fast_;
  std::unique_ptr<TestClient> publisher_;
  std::vector<std::unique_ptr<SseSubscriber>> slow_;
  std::string batch_;
  ReplyCounter replies_;
  EventCounter fast_events_;
};

TEST_P(SlowConsumersUnderLoad, StaysWithinItsLimitsWhilePublishingFarPastEveryBudget) {
  const Figures f = run();
  ASSERT_TRUE(f.delivered) << "a batch was not answered or not delivered to the fast reader";
  const std::uint64_t published = static_cast<std::uint64_t>(kWarmupBatches + kPhases * kBatchesPerPhase) * kBatch;
  EXPECT_EQ(replies_.ok, published);
  EXPECT_EQ(replies_.refused, 0u) << "publishes refused: the pool filled up";
  EXPECT_EQ(fast_events_.seen, published);

  const server::Config config = memory_config();
  const std::size_t connections = kStalled + 1 + 2;  // stalled and slow, the fast reader, the publisher
  EXPECT_LE(f.max_blocks_in_use, blocks_allowed(config, connections))
      << "pool blocks in use passed what the history and the send budgets allow";
  EXPECT_EQ(server_->server().pool_stats().data_refusals, 0u);

  EXPECT_EQ(f.allocations[0], 0u) << "heap allocations while publishing " << kBatchesPerPhase * kBatch
                                  << " events after warm-up";
  // Later phases start with new connections, whose send queues take their
  // slots at the first event (those the stream's head took went back once
  // it was written) and grow once to their budget: at most two allocations
  // each, none per event.
  for (int phase = 1; phase < kPhases; ++phase) {
    EXPECT_LE(f.allocations[phase], static_cast<std::uint64_t>(2 * (kStalled + 1)))
        << "heap allocations while publishing " << kBatchesPerPhase * kBatch << " events in phase " << phase;
  }
  // A queue that kept even one pointer per event would grow by 8 bytes or
  // more for each one published after the first phase.
  const std::uint64_t later_events = static_cast<std::uint64_t>(kPhases - 1) * kBatchesPerPhase * kBatch;
  const std::size_t highest = *std::max_element(f.live_heap.begin() + 1, f.live_heap.end());
  const std::size_t growth = highest > f.live_heap[0] ? highest - f.live_heap[0] : 0;
  EXPECT_LT(growth, 8 * later_events) << "live heap grew from " << f.live_heap[0] << " to " << highest << " bytes";
  std::printf("%s: %llu events, at most %zu pool blocks in use (limit %zu), allocations per phase %llu/%llu/%llu/%llu, "
              "live heap %zu -> %zu bytes\n",
              GetParam(), static_cast<unsigned long long>(published), f.max_blocks_in_use,
              blocks_allowed(config, connections), static_cast<unsigned long long>(f.allocations[0]),
              static_cast<unsigned long long>(f.allocations[1]), static_cast<unsigned long long>(f.allocations[2]),
              static_cast<unsigned long long>(f.allocations[3]), f.live_heap[0], highest);
}

std::string policy_test_name(const ::testing::TestParamInfo<const char*>& param) {
  std::string name = param.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(SlowConsumerMemory, SlowConsumersUnderLoad,
                         ::testing::Values("fifo", "drop-oldest", "drop-newest", "latest", "disconnect"),
                         policy_test_name);

}  // namespace
}  // namespace sluice::test
