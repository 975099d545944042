// Publisher flow control (Server::publish_waiting): a publisher that waits
// for its topic's slowest fifo subscriber slows down to 200 slow readers
// instead of having them cut off, where publish() cuts them off; a
// subscriber that stops reading holds a waiting publisher back for one
// timeout, is cut off, and the rest go on; the wait is refused where it
// would stop a loop. The batch forms (publish_batch, publish_batch_waiting)
// keep the same promises run by run. These tests also run under
// ThreadSanitizer (make test).
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "server/live_settings.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

constexpr std::string_view kData = "0123456789abcdef0123456789abcdef";  // 32 bytes

server::Config small_budgets() {
  server::Config config;
  config.threads = 2;
  // Small kernel buffers and a send budget of 16 KiB (about 230 of these
  // events): a reader that sips falls a budget behind a publisher that does
  // not wait within a few hundred events.
  config.tcp_send_buffer = 4096;
  config.tcp_notsent_lowat = 1024;
  config.connection.send = {.max_bytes = 16 << 10, .max_frames = 64, .max_control_frames = 16};
  config.linger_timeout_ms = 500;
  return config;
}

// SSE subscribers read a little at a time, all on one thread: each turn
// takes at most `sip` bytes from each of them, so together they read far
// slower than a publisher can publish. Every wait has a deadline.
class SlowReaders {
 public:
  SlowReaders(std::uint16_t port, std::string_view target, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      readers_.push_back(std::make_unique<Reader>(port, target));
    }
  }

  [[nodiscard]] bool opened() {
    for (auto& r : readers_) {
      if (!r->sub.opened()) return false;
    }
    return true;
  }

  // Reads on its own thread until each reader has `events` events or was
  // closed by the server.
  void start(std::size_t events, std::size_t sip) {
    thread_ = std::thread([this, events, sip] { read_all(events, sip); });
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  // A test that failed half way leaves at once rather than at the deadline.
  ~SlowReaders() {
    stop_.store(true);
    join();
  }

  // After join(): how many were closed, and whether every other one got
  // exactly events first..first+events-1, in order.
  [[nodiscard]] std::size_t closed() const {
    std::size_t n = 0;
    for (const auto& r : readers_) n += r->closed ? 1 : 0;
    return n;
  }
  [[nodiscard]] std::size_t complete(std::uint64_t first, std::size_t events) const {
    std::size_t n = 0;
    for (const auto& r : readers_) {
      const auto& got = r->sub.events();
      bool in_order = got.size() == events;
      for (std::size_t i = 0; in_order && i < got.size(); ++i) in_order = seq_of(got[i].id) == first + i;
      n += in_order ? 1 : 0;
    }
    return n;
  }
  // Whether every reader's events are consecutive from `first`: a reader
  // cut off has a prefix of them, never one with a gap.
  [[nodiscard]] bool gap_free(std::uint64_t first) const {
    for (const auto& r : readers_) {
      const auto& got = r->sub.events();
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (seq_of(got[i].id) != first + i) return false;
      }
    }
    return true;
  }

 private:
  struct Reader {
    Reader(std::uint16_t port, std::string_view target) : sub(port, target, 4096) {}
    SseSubscriber sub;
    bool closed = false;
  };

  void read_all(std::size_t events, std::size_t sip) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    std::vector<char> chunk(sip);
    std::vector<pollfd> waiting;
    while (std::chrono::steady_clock::now() < deadline && !stop_.load()) {
      bool all_done = true;
      bool read_any = false;
      waiting.clear();
      for (auto& r : readers_) {
        if (r->closed || r->sub.events().size() >= events) continue;
        all_done = false;
        const ssize_t n = ::recv(r->sub.client().fd(), chunk.data(), chunk.size(), MSG_DONTWAIT);
        if (n > 0) {
          r->sub.client().buffer().append(chunk.data(), static_cast<std::size_t>(n));
          r->sub.parse_buffered();
          read_any = true;
        } else if (n == 0) {
          r->closed = true;
        } else {
          waiting.push_back({r->sub.client().fd(), POLLIN, 0});
        }
      }
      if (all_done) return;
      // Nothing to read anywhere: sleep until a reader has bytes.
      if (!read_any && !waiting.empty()) (void)::poll(waiting.data(), waiting.size(), 100);
    }
  }

  std::vector<std::unique_ptr<Reader>> readers_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

constexpr std::size_t kReaders = 200;
constexpr std::size_t kWaitingEvents = 1000;
constexpr std::size_t kSip = 256;

// The stalled subscriber, read at last: a gap-free prefix of the events
// from `first`, then the end.
void expect_cut_off_after_a_prefix(SseSubscriber& stalled, std::uint64_t first) {
  ASSERT_TRUE(stalled.client().read_until_closed());
  stalled.parse_buffered();
  ASSERT_FALSE(stalled.events().empty());
  EXPECT_LT(stalled.events().size(), kWaitingEvents);
  for (std::size_t i = 0; i < stalled.events().size(); ++i) EXPECT_EQ(seq_of(stalled.events()[i].id), first + i);
}

// kWaitingEvents waiting publishes to kReaders slow readers of "flow" on
// `running`: every one is published, and every reader gets every event in
// order, none cut off.
void expect_every_reader_gets_every_waiting_publish(RunningServer& running,
                                                    const std::function<bool()>& once_readers_opened = {}) {
  server::Server& server = running.server();
  SlowReaders readers(running.port(), "/sse/flow?policy=fifo", kReaders);
  ASSERT_TRUE(readers.opened());
  if (once_readers_opened) {
    ASSERT_TRUE(once_readers_opened());
  }
  readers.start(kWaitingEvents, kSip);
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < kWaitingEvents; ++i) {
    const server::PublishResult r = server.publish_waiting("flow", kData, {.timeout = 5s});
    ASSERT_EQ(r.status, server::PublishStatus::ok) << "event " << i;
    ASSERT_EQ(r.subscribers, kReaders);
    if (i == 0) first = r.id;
  }
  readers.join();
  EXPECT_EQ(readers.closed(), 0u);
  EXPECT_EQ(readers.complete(first, kWaitingEvents), kReaders);
  EXPECT_EQ(server.stats().slow_disconnects, 0u);
}

TEST(PublishWaiting, APublisherThatWaitsSlowsDownToTwoHundredSlowReadersAndNoneIsCutOff) {
  RunningServer running(small_budgets());
  expect_every_reader_gets_every_waiting_publish(running);
}

// The same readers and events through publish(), which never waits: they
// fall past their send budget and are cut off (each with a gap-free prefix
// of the events, as fifo promises).
TEST(PublishWaiting, WithoutTheWaitTheSameReadersAreCutOff) {
  RunningServer running(small_budgets());
  server::Server& server = running.server();
  SlowReaders readers(running.port(), "/sse/flow?policy=fifo", kReaders);
  ASSERT_TRUE(readers.opened());
  readers.start(kWaitingEvents, kSip);
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < kWaitingEvents; ++i) {
    server::PublishResult r = server.publish("flow", kData);
    // busy only while a loop lags the history: retried, a bounded number of times.
    for (int retry = 0; r.status == server::PublishStatus::busy && retry < 100000; ++retry) {
      std::this_thread::yield();
      r = server.publish("flow", kData);
    }
    ASSERT_EQ(r.status, server::PublishStatus::ok) << "event " << i;
    if (i == 0) first = r.id;
  }
  readers.join();
  EXPECT_GT(readers.closed(), 0u);
  EXPECT_LT(readers.complete(first, kWaitingEvents), kReaders);
  EXPECT_GT(server.stats().slow_disconnects, 0u);
  EXPECT_TRUE(readers.gap_free(first));
}

// One subscriber reads nothing after its head. The waiting publisher waits
// its whole timeout, is told timed_out (nothing published), and the stalled
// subscriber is cut off; the publisher publishes the event again and the
// readers get every event.
TEST(PublishWaiting, ASubscriberThatStopsReadingCostsOneTimeoutAndIsCutOff) {
  constexpr std::size_t kFew = 20;
  constexpr auto kTimeout = 200ms;
  RunningServer running(small_budgets());
  server::Server& server = running.server();
  SseSubscriber stalled(running.port(), "/sse/flow?policy=fifo", 4096);
  ASSERT_TRUE(stalled.opened());
  SlowReaders readers(running.port(), "/sse/flow?policy=fifo", kFew);
  ASSERT_TRUE(readers.opened());
  readers.start(kWaitingEvents, kSip);
  std::uint64_t first = 0;
  std::size_t timeouts = 0;
  for (std::size_t i = 0; i < kWaitingEvents; ++i) {
    server::PublishResult r;
    // Each timeout cuts off who held the publisher: bounded retries.
    for (int attempt = 0; attempt < 5; ++attempt) {
      const auto start = std::chrono::steady_clock::now();
      r = server.publish_waiting("flow", kData, {.timeout = kTimeout});
      if (r.status != server::PublishStatus::timed_out) break;
      EXPECT_GE(std::chrono::steady_clock::now() - start, kTimeout);
      EXPECT_EQ(r.id, 0u);
      ++timeouts;
    }
    ASSERT_EQ(r.status, server::PublishStatus::ok) << "event " << i;
    if (i == 0) first = r.id;
  }
  readers.join();
  EXPECT_EQ(timeouts, 1u);
  EXPECT_EQ(readers.closed(), 0u);
  EXPECT_EQ(readers.complete(first, kWaitingEvents), kFew);
  EXPECT_EQ(server.stats().slow_disconnects, 1u);
  expect_cut_off_after_a_prefix(stalled, first);
}

// The window a waiting publisher keeps to comes from the send budget in
// force: a reload that shrinks the budget shrinks the window with it, or
// readers bound by the small budget would be cut off as publish() cuts
// them off.
TEST(PublishWaiting, ABudgetReloadedSmallerNarrowsTheWindowAndNoneIsCutOff) {
  server::Config config = small_budgets();
  config.connection.send = {};  // 4,096 frames, 1 MiB
  std::atomic<int> reported{0};
  RunningServer running(config, [&reported](server::Server& s) {
    s.on_reload([&s] {
      server::Config read = small_budgets();
      return server::apply_live_settings(s, read);
    });
    s.on_reloaded([&reported](const std::vector<std::string>& failures) {
      EXPECT_TRUE(failures.empty()) << failures.front();
      ++reported;
    });
  });
  running.server().request_reload();
  ASSERT_TRUE(wait_until([&] { return reported.load() == 1; }));
  expect_every_reader_gets_every_waiting_publish(running);
}

// A connection keeps the budget it opened with: a reload that raises the
// budget leaves the window as it was (until the next start), or readers
// that opened before it, bound by the smaller budget, would be cut off.
TEST(PublishWaiting, ABudgetReloadedLargerLeavesTheWindowAndNoReaderOpenedBeforeIsCutOff) {
  std::atomic<int> reported{0};
  RunningServer running(small_budgets(), [&reported](server::Server& s) {
    s.on_reload([&s] {
      server::Config read = small_budgets();
      read.connection.send = {};  // 4,096 frames, 1 MiB
      return server::apply_live_settings(s, read);
    });
    s.on_reloaded([&reported](const std::vector<std::string>& failures) {
      EXPECT_TRUE(failures.empty()) << failures.front();
      ++reported;
    });
  });
  expect_every_reader_gets_every_waiting_publish(running, [&] {
    running.server().request_reload();
    return wait_until([&] { return reported.load() == 1; });
  });
}

// A subscriber that reads nothing holds a publisher waiting the longest
// wait; the server stops meanwhile (or before the publisher's next call):
// the publisher is told `stopped`, not kept to its timeout by loops that
// deliver no more, and a later call is told so at once.
TEST(PublishWaiting, APublisherWaitingWhenTheServerStopsIsToldSo) {
  RunningServer running(small_budgets());
  server::Server& server = running.server();
  SseSubscriber stalled(running.port(), "/sse/flow?policy=fifo", 4096);
  ASSERT_TRUE(stalled.opened());
  std::atomic<std::size_t> published{0};
  server::PublishStatus last = server::PublishStatus::ok;
  std::thread publisher([&] {
    for (std::size_t i = 0; i < kWaitingEvents; ++i) {
      last = server.publish_waiting("flow", kData, {.timeout = server::kMaxPublishWait}).status;
      if (last != server::PublishStatus::ok) return;
      published.fetch_add(1);
    }
  });
  for (int i = 0; i < 10000 && published.load() == 0; ++i) std::this_thread::sleep_for(1ms);  // polls, bounded
  running.stop();
  publisher.join();
  EXPECT_EQ(last, server::PublishStatus::stopped) << "after " << published.load() << " events";
  EXPECT_LT(published.load(), kWaitingEvents) << "the stalled subscriber never held the publisher";
  EXPECT_EQ(server.publish_waiting("flow", kData, {}).status, server::PublishStatus::stopped);
}

// Once the loops stopped none would deliver an event: every publish, by
// whichever call, is told `stopped` at once, and the pool keeps no block
// for one (on the old code publish() answered ok and the history kept it).
TEST(PublishWaiting, EveryPublishAfterTheServerStoppedIsToldSoAndKeepsNothing) {
  RunningServer running;
  server::Server& server = running.server();
  server::Publisher made_before = server.publisher("flow");
  ASSERT_EQ(server.publish("flow", kData).status, server::PublishStatus::ok);
  running.stop();
  const std::size_t free_blocks = server.pool_stats().free_blocks;
  EXPECT_EQ(server.publish("flow", kData).status, server::PublishStatus::stopped);
  const std::vector<server::BatchEvent> events(2, server::BatchEvent{kData});
  const server::BatchResult batch = server.publish_batch("flow", events);
  EXPECT_EQ(batch.status, server::PublishStatus::stopped);
  EXPECT_EQ(batch.published, 0u);
  EXPECT_EQ(server.publish_batch_waiting("flow", events, {}).status, server::PublishStatus::stopped);
  EXPECT_EQ(made_before.publish(kData).status, server::PublishStatus::stopped);
  EXPECT_EQ(made_before.publish_waiting(kData, {}).status, server::PublishStatus::stopped);
  EXPECT_EQ(server.publisher("flow").publish(kData).status, server::PublishStatus::stopped);
  EXPECT_EQ(server.pool_stats().free_blocks, free_blocks);
}

TEST(PublishWaiting, IsRefusedOnALoopThreadAndPastTheLongestWait) {
  std::atomic<int> on_loop{-1};
  RunningServer running(server::Config{}, [&](server::Server& s) {
    s.every(10ms, [&] {
      if (on_loop.load() == -1) {
        on_loop.store(static_cast<int>(s.publish_waiting("t", "x", {.timeout = 100ms}).status));
      }
    });
  });
  for (int i = 0; i < 1000 && on_loop.load() == -1; ++i) std::this_thread::sleep_for(10ms);  // polls, bounded
  EXPECT_EQ(on_loop.load(), static_cast<int>(server::PublishStatus::cannot_wait));
  server::Server& server = running.server();
  EXPECT_EQ(server.publish_waiting("t", "x", {.timeout = server::kMaxPublishWait + 1ms}).status,
            server::PublishStatus::bad_timeout);
  EXPECT_EQ(server.publish_waiting("t", "x", {.timeout = -1ms}).status, server::PublishStatus::bad_timeout);
  EXPECT_EQ(server.publish_waiting("bad topic", "x", {}).status, server::PublishStatus::bad_topic);
  // Nobody follows "t": there is room, and the event is taken.
  EXPECT_EQ(server.publish_waiting("t", "x", {}).status, server::PublishStatus::ok);
}

// Batches of 100 (each over the waiting window of about 16 events, so each
// is cut into looks and waits), 1,000 events to the same 200 slow readers:
// every reader gets every event in order and none is cut off.
TEST(PublishBatch, WaitingBatchesSlowDownToTwoHundredSlowReadersAndNoneIsCutOff) {
  constexpr std::size_t kBatch = 100;
  RunningServer running(small_budgets());
  server::Server& server = running.server();
  SlowReaders readers(running.port(), "/sse/flow?policy=fifo", kReaders);
  ASSERT_TRUE(readers.opened());
  readers.start(kWaitingEvents, kSip);
  const std::vector<server::BatchEvent> batch(kBatch, server::BatchEvent{kData});
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  for (std::size_t i = 0; i < kWaitingEvents / kBatch; ++i) {
    const server::BatchResult r = server.publish_batch_waiting("flow", batch, {.timeout = 5s});
    ASSERT_EQ(r.status, server::PublishStatus::ok) << "batch " << i;
    ASSERT_EQ(r.published, kBatch);
    ASSERT_EQ(r.subscribers, kReaders);
    if (i == 0) first = r.first_id;
    EXPECT_EQ(r.first_id, i == 0 ? first : last + 1) << "one publisher: nobody gets in between";
    EXPECT_EQ(r.last_id, r.first_id + kBatch - 1);
    last = r.last_id;
  }
  readers.join();
  EXPECT_EQ(readers.closed(), 0u);
  EXPECT_EQ(readers.complete(first, kWaitingEvents), kReaders);
  EXPECT_EQ(server.stats().slow_disconnects, 0u);
}

// A batch longer than a run, with a refused event in its second run: the
// events before it are published (and read) in order, nothing after it is.
TEST(PublishBatch, ARefusedEventEndsTheBatchAndTheEventsBeforeItArePublished) {
  constexpr std::size_t kBatch = 300;
  constexpr std::size_t kRefused = 200;
  static_assert(kRefused > server::Server::kMaxRunEvents);
  RunningServer running(server::Config{});
  server::Server& server = running.server();
  SseSubscriber sub(running.port(), "/sse/batch?policy=fifo");
  ASSERT_TRUE(sub.opened());
  std::vector<std::string> data(kBatch);
  std::vector<server::BatchEvent> batch;
  for (std::size_t i = 0; i < kBatch; ++i) {
    data[i] = i == kRefused ? "{\"sluice\":\"dropped\"}" : "event " + std::to_string(i);
    batch.push_back({data[i], "tick"});
  }
  const server::BatchResult r = server.publish_batch("batch", batch);
  EXPECT_EQ(r.status, server::PublishStatus::reserved_data);
  ASSERT_EQ(r.published, kRefused);
  EXPECT_EQ(r.last_id, r.first_id + kRefused - 1);
  EXPECT_EQ(r.subscribers, 1u);
  ASSERT_TRUE(sub.wait_for(kRefused));
  // One more event after the batch shows nothing of its tail was published.
  const server::PublishResult after = server.publish("batch", "after");
  ASSERT_EQ(after.status, server::PublishStatus::ok);
  EXPECT_EQ(after.id, r.last_id + 1);
  ASSERT_TRUE(sub.wait_for(kRefused + 1));
  ASSERT_EQ(sub.events().size(), kRefused + 1);
  for (std::size_t i = 0; i < kRefused; ++i) {
    EXPECT_EQ(seq_of(sub.events()[i].id), r.first_id + i);
    EXPECT_EQ(sub.events()[i].data, data[i]);
    EXPECT_EQ(sub.events()[i].type, "tick");
  }
  EXPECT_EQ(sub.events().back().data, "after");
  // Refused as the first event of a run (the second): what the first run
  // published still says who it reached.
  batch[kRefused] = {data[kRefused - 1], "tick"};
  batch[server::Server::kMaxRunEvents] = {"{\"sluice\":1}"};
  const server::BatchResult second = server.publish_batch("batch", batch);
  EXPECT_EQ(second.status, server::PublishStatus::reserved_data);
  EXPECT_EQ(second.published, server::Server::kMaxRunEvents);
  EXPECT_EQ(second.subscribers, 1u);
  EXPECT_EQ(server.publish_batch("bad topic", batch).status, server::PublishStatus::bad_topic);
  EXPECT_EQ(server.publish_batch("bad topic", {}).status, server::PublishStatus::bad_topic);
  EXPECT_EQ(server.publish_batch_waiting("bad topic", {}, {}).status, server::PublishStatus::bad_topic);
  EXPECT_EQ(server.publish_batch("batch", {}).published, 0u);
  EXPECT_EQ(server.publish_batch_waiting("batch", batch, {.timeout = -1ms}).status,
            server::PublishStatus::bad_timeout);
}

// A run larger than the topic's history (8 KiB events, 1 MiB kept: about
// 60 of them with their SSE form) would push out its own first events,
// which no loop has been told of yet: the run ends there and the rest
// follows once the loop has them, so the batch goes whole, in order, to a
// reader that keeps up.
TEST(PublishBatch, ARunLargerThanTheHistoryEndsEarlyAndTheBatchGoesWhole) {
  constexpr std::size_t kBatch = 300;
  RunningServer running(server::Config{});
  server::Server& server = running.server();
  SseSubscriber sub(running.port(), "/sse/big?policy=fifo");
  ASSERT_TRUE(sub.opened());
  std::vector<std::string> data;
  for (std::size_t i = 0; i < kBatch; ++i) data.push_back(std::to_string(i) + std::string(8192, 'x'));
  std::vector<server::BatchEvent> batch;
  for (const std::string& d : data) batch.push_back({d});
  std::thread reader([&] { (void)sub.wait_for(kBatch, 30s); });
  const server::BatchResult r = server.publish_batch_waiting("big", batch, {.timeout = 5s});
  reader.join();
  EXPECT_EQ(r.status, server::PublishStatus::ok);
  EXPECT_EQ(r.published, kBatch);
  EXPECT_EQ(r.last_id, r.first_id + kBatch - 1);
  ASSERT_EQ(sub.events().size(), kBatch);
  for (std::size_t i = 0; i < kBatch; ++i) {
    EXPECT_EQ(seq_of(sub.events()[i].id), r.first_id + i);
    EXPECT_EQ(sub.events()[i].data, data[i]);
  }
  EXPECT_EQ(server.stats().slow_disconnects, 0u);
}

// A subscriber that reads nothing: the waiting batch publishes what fits,
// waits its timeout once, keeps what it published and says timed_out; the
// stalled subscriber is cut off with a gap-free prefix, and the rest of the
// batch, published again, reaches the readers, who get every event.
TEST(PublishBatch, AStalledSubscriberCostsAWaitingBatchOneTimeoutAndIsCutOff) {
  constexpr std::size_t kFew = 20;
  constexpr auto kTimeout = 200ms;
  RunningServer running(small_budgets());
  server::Server& server = running.server();
  SseSubscriber stalled(running.port(), "/sse/flow?policy=fifo", 4096);
  ASSERT_TRUE(stalled.opened());
  SlowReaders readers(running.port(), "/sse/flow?policy=fifo", kFew);
  ASSERT_TRUE(readers.opened());
  readers.start(kWaitingEvents, kSip);
  const std::vector<server::BatchEvent> batch(kWaitingEvents, server::BatchEvent{kData});
  std::span<const server::BatchEvent> rest(batch);
  std::uint64_t first = 0;
  std::size_t timeouts = 0;
  for (int call = 0; call < 5 && !rest.empty(); ++call) {
    const auto start = std::chrono::steady_clock::now();
    const server::BatchResult r = server.publish_batch_waiting("flow", rest, {.timeout = kTimeout});
    if (first == 0) first = r.first_id;
    rest = rest.subspan(r.published);
    if (r.status == server::PublishStatus::timed_out) {
      EXPECT_GE(std::chrono::steady_clock::now() - start, kTimeout);
      ++timeouts;
      continue;
    }
    ASSERT_EQ(r.status, server::PublishStatus::ok);
  }
  ASSERT_TRUE(rest.empty());
  readers.join();
  EXPECT_EQ(timeouts, 1u);
  EXPECT_EQ(readers.closed(), 0u);
  EXPECT_EQ(readers.complete(first, kWaitingEvents), kFew);
  EXPECT_EQ(server.stats().slow_disconnects, 1u);
  expect_cut_off_after_a_prefix(stalled, first);
}

}  // namespace
}  // namespace sluice::test
