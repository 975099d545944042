#include "server/loop_broker.hpp"

#include <algorithm>

#include "broker/continuity.hpp"
#include "broker/shard_map.hpp"

namespace sluice::server {

namespace {

// Events per replay request: no more than a read asks for per topic
// (broker.read_count) or a replay may span (history.max_events), and few
// enough that an answer of the largest events fits broker.max_reply_bytes,
// which would otherwise close the connection under every request on it.
std::size_t replay_page(const broker::BrokerConfig& config) {
  constexpr std::size_t kPerEntry = 256;  // an entry's id, field names and RESP framing
  const std::size_t fit = config.link.max_reply_bytes / (config.reader.max_data + kPerEntry);
  return std::max<std::size_t>(1, std::min({config.reader.read_count, config.max_replay, fit}));
}

}  // namespace

LoopBroker::LoopBroker(io::Loop& loop, const broker::BrokerConfig& config, hub::TopicBook& book, unsigned index,
                       std::function<void()> wake)
    : loop_(loop),
      book_(book),
      index_(index),
      wake_(std::move(wake)),
      broker_(broker::make_redis_broker(loop, config, *this)),
      publishes_(std::make_unique<session::BrokerPublishes>(*broker_)),
      replays_(std::make_unique<session::BrokerReplays>(*broker_, replay_page(config))),
      retry_refused_every_(config.link.reconnect_max) {}

LoopBroker::~LoopBroker() = default;

void LoopBroker::request_check(std::string_view topic) {
  {
    const std::lock_guard lock(checks_mutex_);
    if (checks_.find(topic) != checks_.end()) return;
    checks_.emplace(topic);
  }
  wake_();
}

void LoopBroker::run_checks() {
  {
    const std::lock_guard lock(checks_mutex_);
    running_.swap(checks_);
    sending_.swap(forwarded_);
  }
  for (const std::string& topic : running_) check(topic);
  running_.clear();
  for (const Forwarded& f : sending_) (void)broker_->publish(f.topic, {f.data, f.event, f.key}, *this, 0);
  sending_.clear();
}

// A link still making its first connection has no failure to tell yet:
// only one that failed is reported, so a start with Redis up says nothing.
// Another instance, or the same one now answering but misplaced, is a new
// line.
void LoopBroker::report(log::Logger* logger, metrics::LoopMetrics& metrics) {
  const broker::BrokerCounts counts = broker_->counts();
  metrics.broker_link_failures.add(counts.link_failures - counted_.link_failures);
  metrics.broker_unusable_entries.add(counts.unusable_entries - counted_.unusable_entries);
  counted_ = counts;
  std::optional<broker::Unreachable> now = broker_->unreachable();
  if (now && now->error.empty()) return;
  const bool same = now.has_value() == reported_.has_value() &&
                    (!now || (now->address == reported_->address && now->answers == reported_->answers));
  if (same) return;
  metrics.broker_unusable.set(now ? 1 : 0);
  if (logger == nullptr) {
    reported_ = std::move(now);
    return;
  }
  if (now) {
    logger
        ->warn(now->answers ? "Redis answers, but this loop may not publish to it: its publishes are refused (503)"
                           : "Redis cannot be reached: this loop refuses publishes (503) and reads no topic until it "
                             "is back")
        .field("redis", now->address)
        .field("error", now->error)
        .field("loop", index_)
        .field("key", "broker.url");
  } else {
    logger->info("Redis can be reached again").field("redis", reported_->address).field("loop", index_);
  }
  reported_ = std::move(now);
}

bool LoopBroker::forward(std::string_view topic, const broker::EventFields& event, std::size_t max) {
  {
    const std::lock_guard lock(checks_mutex_);
    if (forwarded_.size() >= max) return false;
    forwarded_.push_back({std::string(topic), std::string(event.data), std::string(event.event), std::string(event.key)});
  }
  wake_();
  return true;
}

// Makes this loop's reading of `topic` match whether the node follows it
// now. A topic followed again keeps its history: it is read on from the
// last event kept, checked against the stream first (a stream replaced in
// the meantime is a reset, told).
// A topic is placed (TopicRecord::reader_placed) while it is read, and no
// longer once the reader lets it go: a subscriber that comes after that
// waits for the next place, which a new follow() finds.
// A topic the reader could not follow (broker-full) is read again from the
// last id this node had once the reader has room: its subscribers get every
// event Redis still holds, and a hole only for what it trimmed meanwhile.
void LoopBroker::check(const std::string& topic) {
  // Refused again, it comes back (on_refused); read or let go, it is done.
  if (const auto refused = refused_.find(topic); refused != refused_.end()) refused_.erase(refused);
  const hub::TopicBook::FollowState state = book_.follow_state(topic);
  const auto it = reading_.find(topic);
  if (!state.followed) {
    if (const auto stopped = stopped_.find(topic); stopped != stopped_.end()) stopped_.erase(stopped);
    // A loop that followed it again since the state was read keeps it read
    // (and placed); its request to check comes next.
    if (!book_.reader_leaves(topic) || it == reading_.end()) return;
    broker_->unfollow(topic);
    reading_.erase(it);
    retry_stopped();
    return;
  }
  if (it != reading_.end()) return;
  if (state.stopped) {
    if (broker_->follow_from(topic, {state.epoch, state.last}) == broker::FollowStatus::full) {
      stopped_.insert(topic);  // told already
      return;
    }
    if (const auto stopped = stopped_.find(topic); stopped != stopped_.end()) stopped_.erase(stopped);
    reading_.insert(topic);
    (void)book_.reader_follows_again(topic);
    return;
  }
  // A key Redis refused is read on from the last event this node had of
  // it, or from the first entry of a stream it never had: what was
  // published while the key was being fixed reaches the subscribers (told
  // of the refusal) rather than being skipped by a start at the newest.
  const bool from_kept = state.refused || (state.epoch != 0 && state.last != 0);
  const broker::FollowStatus status =
      from_kept ? broker_->follow_from(topic, {state.epoch, state.last}) : broker_->follow(topic);
  if (status == broker::FollowStatus::full) {
    stop_reading(topic);
    return;
  }
  // On from the last kept event, the topic is placed once the reader has
  // checked the stream (on_continued): at its newest, so that a newcomer is
  // owed nothing, and told of no loss, from before it came.
  reading_.insert(topic);
}

// The subscribers would wait for events that never come: they are told,
// and the topic is tried again when the reader lets another one go.
void LoopBroker::stop_reading(const std::string& topic) {
  book_.stream_reset(topic, "broker-full", hub::StreamAfterReset::stopped);
  stopped_.insert(topic);
}

// The set is taken whole first: a check may stop a topic again (it goes
// into the fresh set) or let one go (which retries that fresh set).
void LoopBroker::retry_stopped() {
  if (stopped_.empty()) return;
  NameSet waiting;
  waiting.swap(stopped_);
  for (const std::string& topic : waiting) check(topic);
}

void LoopBroker::retry_refused(io::Loop::Clock::time_point now) {
  if (refused_.empty() || now - refused_tried_ < retry_refused_every_) return;
  refused_tried_ = now;
  NameSet waiting;
  waiting.swap(refused_);
  for (const std::string& topic : waiting) check(topic);
}

void LoopBroker::room_made() {
  for (const std::string& topic : held_) broker_->resume(topic);
  held_.clear();
}

// A client that resumed here before the reader found the stream set where
// the topic starts: the reader is sent back there, so that what it owes
// that client is read, not skipped. The sink may follow and unfollow from
// inside the reader's calls.
void LoopBroker::on_started(std::string_view topic, broker::StreamId position) {
  const std::uint64_t after = book_.stream_started(topic, position.epoch, position.seq);
  if (after == position.seq) return;
  const std::string name(topic);  // `topic` is the reader's, which unfollow() frees
  broker_->unfollow(name);
  if (broker_->follow_from(name, {position.epoch, after}) == broker::FollowStatus::full) {
    reading_.erase(name);
    stop_reading(name);
  }
}

// A topic followed from a position (its last kept event, the last id it
// had when it was stopped, or again after a reconnect) continues: one
// waiting for its place is placed at the newest.
void LoopBroker::on_continued(std::string_view topic, broker::StreamId newest) {
  book_.stream_placed(topic, newest.epoch, newest.seq);
}

// On `hold` the book is asked to wake this loop once a loop has delivered,
// then the event is tried once more: a delivery between the first try and
// the request would otherwise wake nobody.
broker::Take LoopBroker::on_event(std::string_view topic, const broker::StreamEntry& entry) {
  const hub::Message message{entry.data, entry.event, entry.key};
  if (book_.append(topic, entry.id.epoch, entry.id.seq, message, nullptr) == hub::TopicBook::Append::accepted) {
    return broker::Take::accepted;
  }
  book_.wait_for_room(topic, index_);
  if (book_.append(topic, entry.id.epoch, entry.id.seq, message, nullptr) == hub::TopicBook::Append::accepted) {
    return broker::Take::accepted;
  }
  held_.emplace_back(topic);
  return broker::Take::hold;
}

// The entry after the hole comes next with its own id; the loops tell
// their subscribers which ids are missing when they deliver it.
void LoopBroker::on_gap(std::string_view, broker::StreamId, broker::StreamId) {}

// Lost or replaced, the stream's epoch brings nothing more; rewound, it
// goes on from where the reader now stands.
void LoopBroker::on_reset(std::string_view topic, const char* reason) {
  const std::string_view why(reason);
  const bool gone = why == broker::kStreamLost || why == broker::kStreamReplaced;
  book_.stream_reset(topic, reason, gone ? hub::StreamAfterReset::gone : hub::StreamAfterReset::read_on);
}

// Told once: a key refused again when it is tried (retry_refused(), a
// newcomer) changes nothing for the subscribers told already.
void LoopBroker::on_refused(std::string_view topic, std::string_view) {
  if (const auto it = reading_.find(topic); it != reading_.end()) reading_.erase(it);
  if (refused_.empty()) refused_tried_ = loop_.now();
  refused_.emplace(topic);
  book_.stream_reset(topic, "stream-refused", hub::StreamAfterReset::refused);
  retry_stopped();
}

void BrokerNode::following_changed(std::string_view topic) { loops_[reader_loop(topic)]->request_check(topic); }

void BrokerNode::try_refused_again(std::string_view topic) { loops_[reader_loop(topic)]->request_check(topic); }

unsigned BrokerNode::reader_loop(std::string_view topic) const {
  return static_cast<unsigned>(broker::shard_of(topic, loops_.size()));
}

}  // namespace sluice::server
