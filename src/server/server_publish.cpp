// Owns: the application's publishes (Server::publish, publish_waiting,
// their batch forms, and a Publisher's of its one topic): the checks, the
// hand-over to Redis with a broker, the room a waiting publisher waits
// for, and how each outcome is counted.
#include <algorithm>
#include <array>
#include <optional>

#include "server/server_impl.hpp"
#include "session/publish_metrics.hpp"
#include "sluice/server.hpp"

namespace sluice::server {

namespace {

// The hub's answers, as the public API names them.
PublishStatus public_status(hub::HubStatus status) {
  switch (status) {
    case hub::HubStatus::ok:
      return PublishStatus::ok;
    case hub::HubStatus::bad_topic:
      return PublishStatus::bad_topic;
    case hub::HubStatus::bad_event:
      return PublishStatus::bad_event;
    case hub::HubStatus::too_many_topics:
    case hub::HubStatus::too_many_created:  // the application's own publishes have no allowance
    case hub::HubStatus::too_many_from_address:  // nor subscriptions
      return PublishStatus::too_many_topics;
    case hub::HubStatus::too_many_subscribers:
      return PublishStatus::too_many_subscribers;
    case hub::HubStatus::no_memory:
      return PublishStatus::no_memory;
    case hub::HubStatus::busy:
      return PublishStatus::busy;
    case hub::HubStatus::reserved_event:
      return PublishStatus::reserved_event;
    case hub::HubStatus::reserved_data:
      return PublishStatus::reserved_data;
    case hub::HubStatus::bad_key:
      return PublishStatus::bad_key;
  }
  return PublishStatus::busy;
}

void count(Server::Impl& s, hub::HubStatus status) {
  s.registry.count_off_loop([status](metrics::LoopMetrics& m) { return session::publish_counter(m, status); });
}

// With a broker, an event is handed to its topic's reader loop, which sends
// it to Redis: the id is Redis's, given later.
hub::HubStatus forward(Server::Impl& s, std::string_view topic, const hub::Message& message) {
  const hub::HubStatus checked = hub::check_publishable(topic, message, s.config.hub.max_topic_name);
  if (checked != hub::HubStatus::ok) return checked;
  LoopBroker& reader = *s.workers[s.broker_node.reader_loop(topic)]->broker();
  const broker::EventFields fields{message.data, message.event, message.key};
  const bool taken = reader.forward(topic, fields, s.broker_config->link.max_pending);
  return taken ? hub::HubStatus::ok : hub::HubStatus::busy;
}

// What an event adds to a subscriber's queue beside its data and name: the
// id, the SSE field names or the WebSocket envelope.
constexpr std::size_t kEventOverhead = 128;

// W of publish_waiting() (see server.hpp): how many events a loop may be
// behind before a waiting publisher waits for it, so that a subscriber
// with room takes them all within its budget.
std::uint64_t lag_window(Server::Impl& s, std::size_t event_bytes) {
  const std::size_t max_frames = s.send_max_frames.load(std::memory_order_relaxed);
  const std::size_t max_bytes = s.send_max_bytes.load(std::memory_order_relaxed);
  const std::size_t history = std::max(s.book.limits().history_events, hub::kMinKeptEvents);
  const std::size_t window =
      std::min({history / 2, max_frames / 4, max_bytes / 4 / (event_bytes + kEventOverhead)});
  return std::max<std::size_t>(window, 1);
}

bool on_a_loop(const Server::Impl& s) {
  return std::any_of(s.workers.begin(), s.workers.end(), [](const auto& w) { return w->runs_here(); });
}

// Why a waiting call cannot wait, before it looks at the topic.
std::optional<PublishStatus> cannot_wait(Server::Impl& s, PublishWait wait) {
  if (wait.timeout < std::chrono::milliseconds(0) || wait.timeout > kMaxPublishWait) {
    return PublishStatus::bad_timeout;
  }
  if (s.broker_config || on_a_loop(s)) return PublishStatus::cannot_wait;
  if (s.book.gate().closed()) return PublishStatus::stopped;
  return std::nullopt;
}

// The next run of a batch, as the hub takes it.
using RunMessages = std::array<hub::Message, Server::kMaxRunEvents>;

std::span<const hub::Message> next_run(std::span<const BatchEvent> rest, RunMessages& out) {
  const std::size_t n = std::min(rest.size(), out.size());
  for (std::size_t i = 0; i < n; ++i) out[i] = {rest[i].data, rest[i].event, rest[i].key};
  return {out.data(), n};
}

// Adds what a run published to the batch, and counts it.
void take(Server::Impl& s, BatchResult& batch, const hub::RunResult& run) {
  if (run.published == 0) return;
  batch.subscribers = run.subscribers;
  if (batch.published == 0) batch.first_id = run.first_id;
  batch.last_id = run.last_id;
  batch.published += run.published;
  s.registry.count_off_loop([](metrics::LoopMetrics& m) { return &m.events_published; }, run.published);
}

// A batch that ends refused, counted as a single publish's refusal is.
BatchResult& refused(Server::Impl& s, BatchResult& batch, hub::HubStatus status) {
  count(s, status);
  batch.status = public_status(status);
  return batch;
}

// Refused before the topic is looked at: counted nowhere, as a single
// publish's checks are not.
BatchResult& unchecked(BatchResult& batch, hub::HubStatus status) {
  batch.status = public_status(status);
  return batch;
}

// An empty batch still names a topic, checked as a publish's would be.
hub::HubStatus empty_batch_status(Server::Impl& s, std::string_view topic) {
  return hub::check_publishable(topic, hub::Message{}, s.config.hub.max_topic_name);
}

// Where a publish goes: a topic by name, or the record a Publisher holds,
// built with the Publisher's own scratch.
struct Target {
  std::string_view topic;
  hub::TopicRecord* record = nullptr;
  hub::FrameScratch* scratch = nullptr;
};

hub::PublishResult publish_once(Server::Impl& s, const Target& target, const hub::Message& message,
                                const hub::RoomRule* room) {
  if (target.record != nullptr) return s.book.publish_to(*target.record, message, target.scratch, room);
  return s.book.publish(target.topic, message, nullptr, nullptr, room);
}

PublishResult answer(Server::Impl& s, const hub::PublishResult& r) {
  count(s, r.status);
  return {public_status(r.status), r.id, r.subscribers};
}

// publish(): handed to Redis with a broker (a draining loop still sends
// to Redis, for the other nodes to deliver); else refused once the loops
// stopped, or published and counted.
PublishResult publish_now(Server::Impl& s, const Target& target, const hub::Message& message) {
  if (s.broker_config) {
    const hub::HubStatus status = forward(s, target.topic, message);
    if (status != hub::HubStatus::ok) return {public_status(status)};
    return {PublishStatus::ok, 0, s.book.follow_state(target.topic).subscribers};
  }
  if (s.book.gate().closed()) return {PublishStatus::stopped};
  return answer(s, publish_once(s, target, message, nullptr));
}

// The first look for room is a plain publish under a RoomRule: a topic
// with room (the common case while subscribers keep up) costs no more than
// publish() and the rule, and the loops see no waiter to wake. Only a
// publisher that found none pins the record (a Publisher holds it already)
// and counts itself as a waiter (the count the loops read stays on the
// record while it waits), then looks again before it sleeps, so a loop
// that made room between the first look and the count still ends the
// wait. Each look is a publish under the rule: the look and the publish
// are one step under the topic's lock, so waiting publishers of one topic
// never overrun the window together. The timeout runs from the first look
// that found no room. The caller has checked that it may wait.
PublishResult publish_with_room(Server::Impl& s, const Target& target, const hub::Message& message,
                                PublishWait wait) {
  const std::size_t event_bytes = message.data.size() + message.event.size();
  hub::RoomRule room{lag_window(s, event_bytes)};
  if (const hub::PublishResult r = publish_once(s, target, message, &room); r.status != hub::HubStatus::busy) {
    return answer(s, r);
  }
  hub::TopicRef acquired;
  hub::TopicRecord* record = target.record;
  if (record == nullptr) {
    hub::HubStatus status = hub::HubStatus::ok;
    acquired = s.book.acquire(target.topic, status);
    if (!acquired) return {public_status(status)};
    record = acquired.get();
  }
  const auto deadline = hub::PublishGate::Clock::now() + wait.timeout;
  hub::PublishGate::Wait waiting(s.book.gate(), record->room_waiters);
  for (;;) {
    waiting.arm();
    if (s.book.gate().closed()) return {PublishStatus::stopped};
    room.max_lag = lag_window(s, event_bytes);  // a reload may have narrowed it meanwhile
    const hub::PublishResult r = publish_once(s, target, message, &room);
    if (r.status != hub::HubStatus::busy) return answer(s, r);
    if (!waiting.sleep_until(deadline)) {
      s.book.cut_stalled(*record);
      count(s, r.status);
      return {PublishStatus::timed_out, 0, r.subscribers};
    }
  }
}

}  // namespace

PublishResult Server::publish(std::string_view topic, std::string_view data, std::string_view event,
                              std::string_view key) {
  return publish_now(*impl_, {.topic = topic}, {data, event, key});
}

PublishResult Server::publish_waiting(std::string_view topic, std::string_view data, PublishWait wait,
                                      std::string_view event, std::string_view key) {
  Impl& s = *impl_;
  if (const auto why = cannot_wait(s, wait)) return {*why};
  const hub::Message message{data, event, key};
  const hub::HubStatus checked = hub::check_publishable(topic, message, s.config.hub.max_topic_name);
  if (checked != hub::HubStatus::ok) return {public_status(checked)};
  return publish_with_room(s, {.topic = topic}, message, wait);
}

struct Publisher::Impl {
  // Counts a publisher among its server's live ones (~Server checks that
  // none is left). The first member after the server, so
  // the count goes down only once the topic and the slab are let go of.
  class LiveCount {
   public:
    explicit LiveCount(std::atomic<std::size_t>& count) : count_(count) {
      count_.fetch_add(1, std::memory_order_relaxed);
    }
    ~LiveCount() { count_.fetch_sub(1, std::memory_order_release); }
    LiveCount(const LiveCount&) = delete;
    LiveCount& operator=(const LiveCount&) = delete;

   private:
    std::atomic<std::size_t>& count_;
  };

  Impl(Server::Impl& s, std::string_view name) : server(s), live(s.live_publishers), topic(name) { take_topic(); }

  void take_topic() {
    if (topic.starts_with(hub::kServerTopicMark)) {
      status = hub::HubStatus::bad_topic;  // as publish() refuses it
    } else if (server.broker_config) {
      status = hub::check_publishable(topic, hub::Message{}, server.config.hub.max_topic_name);
    } else {
      record = server.book.acquire(topic, status);
    }
  }

  // Whether it may publish. Refused at topics.max, it asks again, as a
  // publish by name does at each call: the table may have room now. A
  // refusal is counted as a publish by name's is.
  [[nodiscard]] bool ready() {
    if (status == hub::HubStatus::too_many_topics) take_topic();
    if (status != hub::HubStatus::ok) count(server, status);
    return status == hub::HubStatus::ok;
  }

  [[nodiscard]] Target target() { return {topic, record.get(), &scratch}; }

  Server::Impl& server;
  const LiveCount live;
  const std::string topic;
  hub::HubStatus status = hub::HubStatus::ok;
  hub::TopicRef record;  // none with a broker, nor while status is not ok
  hub::FrameScratch scratch;
};

Publisher Server::publisher(std::string_view topic) {
  return Publisher(std::make_unique<Publisher::Impl>(*impl_, topic));
}

Publisher::Publisher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Publisher::Publisher(Publisher&& other) noexcept = default;
Publisher& Publisher::operator=(Publisher&& other) noexcept = default;
Publisher::~Publisher() = default;

PublishStatus Publisher::status() const {
  return impl_ ? public_status(impl_->status) : PublishStatus::bad_topic;
}

std::string_view Publisher::topic() const { return impl_ ? std::string_view(impl_->topic) : std::string_view(); }

PublishResult Publisher::publish(std::string_view data, std::string_view event, std::string_view key) {
  if (!impl_ || !impl_->ready()) return {status()};
  return publish_now(impl_->server, impl_->target(), {data, event, key});
}

PublishResult Publisher::publish_waiting(std::string_view data, PublishWait wait, std::string_view event,
                                         std::string_view key) {
  if (!impl_) return {status()};
  if (const auto why = cannot_wait(impl_->server, wait)) return {*why};
  if (!impl_->ready()) return {status()};
  return publish_with_room(impl_->server, impl_->target(), {data, event, key}, wait);
}

BatchResult Server::publish_batch(std::string_view topic, std::span<const BatchEvent> events) {
  Impl& s = *impl_;
  BatchResult batch;
  if (events.empty()) return unchecked(batch, empty_batch_status(s, topic));
  if (s.broker_config) {
    for (const BatchEvent& e : events) {
      if (const hub::HubStatus status = forward(s, topic, {e.data, e.event, e.key}); status != hub::HubStatus::ok) {
        return unchecked(batch, status);
      }
      ++batch.published;
    }
    batch.subscribers = s.book.follow_state(topic).subscribers;
    return batch;
  }
  if (s.book.gate().closed()) {  // as publish_now()
    batch.status = PublishStatus::stopped;
    return batch;
  }
  RunMessages messages;
  while (batch.published < events.size()) {
    const hub::RunResult run = s.book.publish_run(topic, next_run(events.subspan(batch.published), messages));
    take(s, batch, run);
    if (run.status != hub::HubStatus::ok) return refused(s, batch, run.status);
  }
  return batch;
}

// publish_waiting()'s looks and waits, run by run: a run that found room
// for some of its events publishes those and looks again for the rest.
// Each wait's timeout runs from the first look that found no room since
// the last event published.
BatchResult Server::publish_batch_waiting(std::string_view topic, std::span<const BatchEvent> events,
                                          PublishWait wait) {
  Impl& s = *impl_;
  if (const auto why = cannot_wait(s, wait)) return {*why};
  BatchResult batch;
  if (events.empty()) return unchecked(batch, empty_batch_status(s, topic));
  std::size_t largest = 0;
  for (const BatchEvent& e : events) largest = std::max(largest, e.data.size() + e.event.size());
  hub::RoomRule room{lag_window(s, largest)};
  RunMessages messages;
  hub::TopicRef record;
  std::optional<hub::PublishGate::Wait> waiting;
  hub::PublishGate::Clock::time_point deadline;
  while (batch.published < events.size()) {
    if (waiting) waiting->arm();
    if (s.book.gate().closed()) {
      batch.status = PublishStatus::stopped;
      return batch;
    }
    room.max_lag = lag_window(s, largest);  // a reload may have narrowed it meanwhile
    const hub::RunResult run =
        s.book.publish_run(topic, next_run(events.subspan(batch.published), messages), &room);
    take(s, batch, run);
    if (run.status == hub::HubStatus::ok) {
      // Room for the whole run: no longer a waiter, whom every delivery
      // to the topic would wake.
      waiting.reset();
      record = hub::TopicRef();
      continue;
    }
    if (run.status != hub::HubStatus::busy) return refused(s, batch, run.status);
    if (!waiting) {
      hub::HubStatus status = hub::HubStatus::ok;
      record = s.book.acquire(topic, status);
      if (!record) return unchecked(batch, status);
      waiting.emplace(s.book.gate(), record->room_waiters);
      deadline = hub::PublishGate::Clock::now() + wait.timeout;
      continue;  // counted as a waiter, it looks once more before it sleeps
    }
    if (run.published != 0) deadline = hub::PublishGate::Clock::now() + wait.timeout;
    if (!waiting->sleep_until(deadline)) {
      s.book.cut_stalled(*record.get());
      refused(s, batch, run.status);
      batch.status = PublishStatus::timed_out;
      return batch;
    }
  }
  return batch;
}

}  // namespace sluice::server
