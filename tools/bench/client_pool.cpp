#include "client_pool.hpp"

#include <algorithm>
#include <pthread.h>
#include <time.h>

#include <chrono>

#include "clock.hpp"

namespace sluice::bench {

ClientPool::ClientPool(const ClientPoolOptions& options) : ClientPool(options, own_counters_) {}

ClientPool::ClientPool(const ClientPoolOptions& options, StreamCounters& counters) : options_(options), counters_(counters) {
  options_.threads = std::clamp<std::size_t>(options_.threads, 1, std::max<std::size_t>(1, options_.sessions));
  options_.sources = std::min<std::size_t>(options_.sources, 254);
  for (std::size_t i = 0; i < options_.threads; ++i) {
    contexts_.push_back(std::make_unique<ReaderContext>(counters_));
    contexts_.back()->latency_every = std::max<std::uint32_t>(1, options_.latency_every);
  }
  sessions_.resize(options_.threads);
}

ClientPool::~ClientPool() { stop(); }

void ClientPool::start() {
  const std::size_t share = options_.sessions / options_.threads;
  std::size_t first = options_.first_session;
  for (std::size_t i = 0; i < options_.threads; ++i) {
    const std::size_t count = share + (i < options_.sessions % options_.threads ? 1 : 0);
    threads_.emplace_back([this, i, first, count] { run_thread(i, first, count); });
    first += count;
  }
}

void ClientPool::run_thread(std::size_t thread, std::size_t first, std::size_t count) {
  ReaderContext& context = *contexts_[thread];
  std::vector<std::unique_ptr<Subscriber>>& sessions = sessions_[thread];
  sessions.reserve(count);
  SubscriberOptions session = options_.session;
  const std::size_t window = std::max<std::size_t>(1, options_.connect_window);
  for (std::size_t i = 0; i < count && !context.loop.stopping(); ++i) {
    while (sessions.size() - context.settled >= window && !context.loop.stopping()) context.loop.run_once(10);
    if (options_.sources > 0) session.source = "127.0.0." + std::to_string(1 + (first + i) % options_.sources);
    if (!options_.servers.empty()) session.server = options_.servers[(first + i) % options_.servers.size()];
    sessions.push_back(make_subscriber(context, session));
    sessions.back()->start();
  }
  context.loop.run();
}

bool ClientPool::wait_ready(std::uint64_t deadline_ns) const {
  while (counters_.ready.load() + counters_.failed.load() < options_.sessions) {
    if (now_ns() >= deadline_ns) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return counters_.failed.load() == 0;
}

void ClientPool::record_latency_from(std::uint64_t from_ns) {
  for (auto& context : contexts_) context->record_from.store(from_ns, std::memory_order_relaxed);
}

void ClientPool::stop() {
  stop_reading();
  for (auto& sessions : sessions_) sessions.clear();
}

void ClientPool::stop_reading() {
  for (auto& context : contexts_) context->loop.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

std::vector<double> ClientPool::reader_cpu_seconds() const {
  std::vector<double> out;
  for (const std::thread& t : threads_) {
    clockid_t clock;
    timespec ts{};
    if (pthread_getcpuclockid(const_cast<std::thread&>(t).native_handle(), &clock) != 0 || ::clock_gettime(clock, &ts) != 0) {
      out.push_back(0);
      continue;
    }
    out.push_back(static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9);
  }
  return out;
}

Histogram ClientPool::latency() const {
  Histogram all;
  for (const auto& context : contexts_) all.merge(context->latency);
  return all;
}

}  // namespace sluice::bench
