#include "inproc_publisher.hpp"

#include <cstring>
#include <optional>
#include <span>
#include <string_view>

#include "clock.hpp"
#include "stamp.hpp"

namespace sluice::peers {

namespace {

using server::PublishStatus;

// How often the thread looks at the server's open streams before it starts.
constexpr std::chrono::milliseconds kStartPoll{5};

std::string_view status_name(PublishStatus status) {
  switch (status) {
    case PublishStatus::ok: return "ok";
    case PublishStatus::bad_topic: return "bad_topic";
    case PublishStatus::bad_event: return "bad_event";
    case PublishStatus::too_many_topics: return "too_many_topics";
    case PublishStatus::too_many_subscribers: return "too_many_subscribers";
    case PublishStatus::no_memory: return "no_memory";
    case PublishStatus::busy: return "busy";
    case PublishStatus::reserved_event: return "reserved_event";
    case PublishStatus::reserved_data: return "reserved_data";
    case PublishStatus::bad_key: return "bad_key";
    case PublishStatus::timed_out: return "timed_out";
    case PublishStatus::cannot_wait: return "cannot_wait";
    case PublishStatus::bad_timeout: return "bad_timeout";
    case PublishStatus::stopped: return "stopped";
  }
  return "unknown";
}

}  // namespace

InprocPublisher::InprocPublisher(server::Server& server, const InprocOptions& options)
    : server_(server), options_(options) {
  const std::string payload = bench::make_payload(options_.size, 0, 0, 1);
  for (std::size_t i = 0; i < options_.batch; ++i) payload_.insert(payload_.end(), payload.begin(), payload.end());
  for (std::size_t i = 0; i < options_.batch; ++i) {
    events_.push_back({std::string_view(payload_.data() + i * options_.size, options_.size)});
  }
}

InprocPublisher::~InprocPublisher() { stop(); }

void InprocPublisher::start() {
  thread_ = std::thread([this] { run(); });
}

// Set under the lock the thread sleeps with, so that a sleep about to
// begin sees it and one under way is woken.
void InprocPublisher::stop() {
  {
    const std::lock_guard lock(stop_mutex_);
    stop_.store(true, std::memory_order_relaxed);
  }
  stop_wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// bench::now_ns() reads CLOCK_MONOTONIC, the steady clock's.
bool InprocPublisher::sleep_until(std::uint64_t when_ns) {
  const std::chrono::steady_clock::time_point at{std::chrono::nanoseconds(when_ns)};
  std::unique_lock lock(stop_mutex_);
  return !stop_wake_.wait_until(lock, at, [this] { return stop_.load(std::memory_order_relaxed); });
}

bool InprocPublisher::wait_for_subscribers() {
  while (!stop_.load(std::memory_order_relaxed)) {
    if (server_.stats().streams >= options_.start_after) return true;
    std::this_thread::sleep_for(kStartPoll);
  }
  return false;
}

void InprocPublisher::run() {
  if (!wait_for_subscribers()) return;
  std::optional<server::Publisher> publisher;
  if (options_.via == PublishVia::publisher) publisher.emplace(server_.publisher(options_.topic));
  const std::uint64_t started = bench::now_ns();
  for (std::uint64_t seq = 1; !stop_.load(std::memory_order_relaxed); seq += options_.batch) {
    if (options_.rate > 0) {
      // Event `seq` is due (seq - 1) / rate seconds after the start: a
      // thread that fell behind catches up without sleeping.
      const auto due = started + static_cast<std::uint64_t>(static_cast<double>(seq - 1) * 1e9 / options_.rate);
      if (due > bench::now_ns() && !sleep_until(due)) return;
    }
    if (!(options_.batch == 1 ? publish_one(seq, publisher ? &*publisher : nullptr) : publish_batch(seq))) return;
  }
}

bool InprocPublisher::publish_one(std::uint64_t seq, server::Publisher* publisher) {
  const std::string_view data(payload_.data(), payload_.size());
  const server::PublishWait wait{.timeout = options_.wait};
  bench::write_sequence(payload_.data(), 0, seq);
  const bool stamped = (seq - 1) % options_.stamp_every == 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    if (stamped) bench::write_stamp(payload_.data(), bench::now_ns());
    server::PublishResult r;
    if (publisher != nullptr) {
      r = options_.call == PublishCall::waiting ? publisher->publish_waiting(data, wait) : publisher->publish(data);
    } else {
      r = options_.call == PublishCall::waiting ? server_.publish_waiting(options_.topic, data, wait)
                                                : server_.publish(options_.topic, data);
    }
    if (r.status == PublishStatus::ok) {
      counts_.published.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    if (!try_again(r.status, seq)) return false;
  }
  return false;
}

bool InprocPublisher::publish_batch(std::uint64_t first_seq) {
  const auto event_at = [this](std::size_t i) { return payload_.data() + i * options_.size; };
  for (std::size_t i = 0; i < events_.size(); ++i) bench::write_sequence(event_at(i), 0, first_seq + i);
  std::span<const server::BatchEvent> rest(events_);
  while (!stop_.load(std::memory_order_relaxed)) {
    // One time for the batch, written once and copied to each event.
    char stamp[bench::kStampSize];
    bench::write_stamp(stamp, bench::now_ns());
    for (std::size_t i = events_.size() - rest.size(); i < events_.size(); ++i) {
      std::memcpy(event_at(i), stamp, sizeof stamp);
    }
    const server::BatchResult r = options_.call == PublishCall::waiting
                                      ? server_.publish_batch_waiting(options_.topic, rest, {.timeout = options_.wait})
                                      : server_.publish_batch(options_.topic, rest);
    counts_.published.fetch_add(r.published, std::memory_order_relaxed);
    rest = rest.subspan(r.published);
    if (r.status == PublishStatus::ok) return true;
    if (!try_again(r.status, first_seq + (events_.size() - rest.size()))) return false;
  }
  return false;
}

bool InprocPublisher::try_again(PublishStatus status, std::uint64_t seq) {
  switch (status) {
    case PublishStatus::busy:
    case PublishStatus::no_memory:
      // A loop lags (or the pool is short): give the core to the loops,
      // which share it, and try the same event again.
      counts_.busy.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::yield();
      return true;
    case PublishStatus::timed_out:
      counts_.timed_out.fetch_add(1, std::memory_order_relaxed);
      return true;
    case PublishStatus::stopped:
      return false;  // the server is stopping: so is the thread
    default:
      // No event can follow this one: the server is stopped, so that the
      // process ends (sluiced-inproc exits 1 naming the status) rather
      // than serve on with nothing to send.
      error_ = "publish of event " + std::to_string(seq) + " answered " + std::string(status_name(status)) +
               ", publishing stopped";
      server_.stop();
      return false;
  }
}

}  // namespace sluice::peers
