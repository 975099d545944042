// Many threads sending to one WebSocket, as a Google Benchmark: the cost of
// keeping concurrent senders' frames whole and in order without a lock
// around the socket. T threads send small WebSocket messages to
// one connection (a socketpair whose far end a reader thread drains), three
// ways, in one run:
//   sluice    each sender encodes the whole frame into pool blocks and hands
//             it to the connection's owner through the lock-free inbox; the
//             owner gathers everything queued into one writev per flush
//   mutex     a lock held around encode + write (the fix HTTP.jl tried)
//   fresh     a new heap buffer per frame, then a locked write (the fix
//             HTTP.jl merged)
// Reported: messages/s and heap allocations per message.
#include <benchmark/benchmark.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "buf/frame.hpp"
#include "conn/out_queue.hpp"
#include "conn/writer.hpp"
#include "io/mpsc_queue.hpp"
#include "proto/ws_encoder.hpp"

namespace {

constexpr std::size_t kMessage = 64;
constexpr int kPerThread = 20000;

// The connection: a socketpair, its far end drained by a reader thread.
struct Wire {
  int fds[2];
  std::atomic<bool> done{false};
  std::thread reader;
  Wire() {
    ::socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
    reader = std::thread([this] {
      char sink[1 << 16];
      while (::read(fds[1], sink, sizeof sink) > 0) {
      }
    });
  }
  ~Wire() {
    ::shutdown(fds[0], SHUT_WR);
    reader.join();
    ::close(fds[0]);
    ::close(fds[1]);
  }
};

void write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w <= 0) return;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

struct VectorSink final : sluice::buf::Sink {
  std::vector<char>* out;
  using Sink::append;
  bool append(const char* d, std::size_t n) override {
    out->insert(out->end(), d, d + n);
    return true;
  }
};

void run_senders(int threads, const std::function<void()>& body) {
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t) senders.emplace_back(body);
  for (auto& s : senders) s.join();
}

void report(benchmark::State& state, int threads, std::uint64_t allocations) {
  const double messages = static_cast<double>(state.iterations()) * threads * kPerThread;
  state.counters["msgs/s"] = benchmark::Counter(messages, benchmark::Counter::kIsRate);
  state.counters["allocs/msg"] = static_cast<double>(allocations) / messages;
}

void BM_sluice_inbox(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  sluice::buf::Pool pool({.block_count = 1 << 16, .block_size = 256, .reserve = 16});
  Wire wire;
  sluice::io::MpscQueue<sluice::buf::FrameRef> inbox(1 << 14);
  const std::string payload(kMessage, 'x');
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    std::atomic<int> running{threads};
    // The owner: drains the inbox into its OutQueue and flushes, as a loop does.
    std::thread owner([&] {
      sluice::conn::OutQueue out({.max_bytes = 1 << 30, .max_frames = 1 << 16, .max_control_frames = 4});
      sluice::conn::SocketWriter writer(wire.fds[0]);
      sluice::buf::FrameRef frame;
      while (running.load() > 0 || inbox.try_pop(frame)) {
        while (inbox.try_pop(frame)) (void)out.push_data(std::move(frame));
        while (out.flush(writer).status == sluice::conn::FlushStatus::blocked) {
        }
      }
    });
    const std::uint64_t before = sluice::test::allocations();
    run_senders(threads, [&] {
      for (int i = 0; i < kPerThread; ++i) {
        sluice::buf::FrameRef frame = sluice::proto::ws::make_message_frame(
            pool, sluice::buf::Lane::data, sluice::proto::ws::Opcode::text, std::span<const char>(payload));
        while (!inbox.try_push(std::move(frame))) std::this_thread::yield();
      }
      --running;
    });
    owner.join();
    allocations += sluice::test::allocations() - before;
  }
  report(state, threads, allocations);
}

void BM_mutex_around_write(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  Wire wire;
  std::mutex lock;
  std::vector<char> buffer;
  buffer.reserve(256);
  const std::string payload(kMessage, 'x');
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    const std::uint64_t before = sluice::test::allocations();
    run_senders(threads, [&] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::lock_guard guard(lock);
        buffer.clear();
        VectorSink sink;
        sink.out = &buffer;
        (void)sluice::proto::ws::encode_frame(sluice::proto::ws::Opcode::text, true, false,
                                              std::span<const char>(payload), sink);
        write_all(wire.fds[0], buffer.data(), buffer.size());
      }
    });
    allocations += sluice::test::allocations() - before;
  }
  report(state, threads, allocations);
}

void BM_fresh_buffer_per_frame(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  Wire wire;
  std::mutex lock;
  const std::string payload(kMessage, 'x');
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    const std::uint64_t before = sluice::test::allocations();
    run_senders(threads, [&] {
      for (int i = 0; i < kPerThread; ++i) {
        std::vector<char> buffer;
        VectorSink sink;
        sink.out = &buffer;
        (void)sluice::proto::ws::encode_frame(sluice::proto::ws::Opcode::text, true, false,
                                              std::span<const char>(payload), sink);
        const std::lock_guard guard(lock);
        write_all(wire.fds[0], buffer.data(), buffer.size());
      }
    });
    allocations += sluice::test::allocations() - before;
  }
  report(state, threads, allocations);
}

BENCHMARK(BM_sluice_inbox)->Arg(1)->Arg(4)->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mutex_around_write)->Arg(1)->Arg(4)->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fresh_buffer_per_frame)->Arg(1)->Arg(4)->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
