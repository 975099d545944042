#include "client_pool.hpp"

#include <algorithm>
#include <chrono>

#include "clock.hpp"

namespace sluice::bench {

ClientPool::ClientPool(const ClientPoolOptions& options) : options_(options) {
  options_.threads = std::clamp<std::size_t>(options_.threads, 1, std::max<std::size_t>(1, options_.sessions));
  for (std::size_t i = 0; i < options_.threads; ++i) {
    contexts_.push_back(std::make_unique<ReaderContext>(counters_));
    contexts_.back()->latency_every = std::max<std::uint32_t>(1, options_.latency_every);
  }
}

ClientPool::~ClientPool() { stop(); }

void ClientPool::start() {
  const std::size_t share = options_.sessions / options_.threads;
  for (std::size_t i = 0; i < options_.threads; ++i) {
    const std::size_t count = share + (i < options_.sessions % options_.threads ? 1 : 0);
    threads_.emplace_back([this, i, count] { run_thread(*contexts_[i], count); });
  }
}

void ClientPool::run_thread(ReaderContext& context, std::size_t count) {
  std::vector<std::unique_ptr<Session>> sessions;
  sessions.reserve(count);
  for (std::size_t i = 0; i < count && !context.loop.stopping(); ++i) {
    sessions.push_back(make_session(context, options_.session));
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
  for (auto& context : contexts_) context->loop.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

Histogram ClientPool::latency() const {
  Histogram all;
  for (const auto& context : contexts_) all.merge(context->latency);
  return all;
}

}  // namespace sluice::bench
