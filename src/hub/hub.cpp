#include "sluice/hub/hub.hpp"

#include <algorithm>

#include "sluice/hub/event_id.hpp"
#include "sluice/hub/history.hpp"
#include "sluice/hub/topic_name.hpp"
#include "sluice/proto/sse.hpp"

namespace sluice::hub {

struct Hub::Topic {
  struct Entry {
    Subscriber* subscriber;
    std::uint32_t cookie;
  };
  Topic(std::string_view topic_name, const HubLimits& limits)
      : name(topic_name), history(limits.history_events, limits.history_bytes) {}

  std::string name;
  History history;
  std::uint64_t next_id = 1;
  std::vector<Entry> subscribers;
  bool publishing = false;
  bool has_holes = false;  // unsubscribed during a publish: compact after it
};

namespace {

// 0 means "no key: the whole topic is one slot", so a key never hashes to it.
std::uint64_t conflation_key(std::string_view key) {
  if (key.empty()) return 0;
  const std::uint64_t h = std::hash<std::string_view>{}(key);
  return h == 0 ? 1 : h;
}

}  // namespace

Hub::Hub(buf::Pool& pool, const HubLimits& limits, std::string epoch)
    : pool_(pool), limits_(limits), epoch_(std::move(epoch)) {}

Hub::~Hub() = default;

Hub::Topic* Hub::find_or_create(std::string_view name, HubStatus& status) {
  status = HubStatus::ok;
  if (auto it = topics_.find(name); it != topics_.end()) return it->second.get();
  if (!valid_topic_name(name, limits_.max_topic_name)) {
    status = HubStatus::bad_topic;
    return nullptr;
  }
  if (topics_.size() >= limits_.max_topics) {
    status = HubStatus::too_many_topics;
    return nullptr;
  }
  auto topic = std::make_unique<Topic>(name, limits_);
  Topic* raw = topic.get();
  topics_.emplace(raw->name, std::move(topic));
  return raw;
}

HubStatus Hub::subscribe(std::string_view name, Subscriber* subscriber, std::uint32_t cookie) {
  HubStatus status;
  Topic* topic = find_or_create(name, status);
  if (topic == nullptr) return status;
  if (topic->subscribers.size() >= limits_.max_subscribers_per_topic) return HubStatus::too_many_subscribers;
  topic->subscribers.push_back({subscriber, cookie});
  return HubStatus::ok;
}

void Hub::unsubscribe(std::string_view name, Subscriber* subscriber) {
  auto it = topics_.find(name);
  if (it == topics_.end()) return;
  Topic& topic = *it->second;
  auto pos = std::find_if(topic.subscribers.begin(), topic.subscribers.end(),
                          [subscriber](const Topic::Entry& e) { return e.subscriber == subscriber; });
  if (pos == topic.subscribers.end()) return;
  if (topic.publishing) {
    pos->subscriber = nullptr;
    topic.has_holes = true;
    return;
  }
  *pos = topic.subscribers.back();
  topic.subscribers.pop_back();
}

PublishResult Hub::publish(std::string_view name, const Message& message) {
  if (message.event.size() > 255 || !proto::sse::valid_field(message.event)) return {HubStatus::bad_event};
  HubStatus status;
  Topic* topic = find_or_create(name, status);
  if (topic == nullptr) return {status};
  const std::uint64_t id = topic->next_id;
  char id_text[kMaxIdText];
  EventFrames frames(pool_, deflater_, scratch_, {topic->name, {id_text, format_id(id, id_text)}, message.event,
                                                  message.data});
  // When the pool is short of blocks, this topic's history gives way first:
  // replay is a convenience, the live event is the point. The SSE form is
  // built now so that a refusal reaches the publisher, not the subscribers.
  while (!frames.sse() && topic->history.evict_oldest()) frames.forget();
  if (!frames.sse()) return {HubStatus::no_memory};
  ++topic->next_id;
  const std::uint64_t key = conflation_key(message.key);
  keep_in_history(*topic, id, key, message);
  return {HubStatus::ok, id, deliver_all(*topic, id, key, frames)};
}

std::size_t Hub::deliver_all(Topic& topic, std::uint64_t id, std::uint64_t key, EventFrames& frames) {
  std::size_t delivered = 0;
  topic.publishing = true;
  // Index loop: deliver() may subscribe others, which can grow the vector.
  for (std::size_t i = 0; i < topic.subscribers.size(); ++i) {
    const Topic::Entry entry = topic.subscribers[i];
    if (entry.subscriber == nullptr) continue;
    entry.subscriber->deliver(Delivery{topic.name, entry.cookie, id, key, frames});
    ++delivered;
  }
  topic.publishing = false;
  if (topic.has_holes) {
    std::erase_if(topic.subscribers, [](const Topic::Entry& e) { return e.subscriber == nullptr; });
    topic.has_holes = false;
  }
  return delivered;
}

// History keeps the event itself, not its wire forms: one byte of event-name
// length, the name, the data. A replay encodes it again for its subscriber.
void Hub::keep_in_history(Topic& topic, std::uint64_t id, std::uint64_t key, const Message& message) {
  if (limits_.history_events == 0) return;
  buf::FrameBuilder builder(pool_, buf::Lane::data);
  const char event_length = static_cast<char>(message.event.size());
  builder.append(&event_length, 1);
  builder.append(message.event);
  builder.append(message.data);
  topic.history.push(id, key, builder.finish());  // an empty frame (no room) clears it: no silent gap
}

std::size_t Hub::format_id(std::uint64_t seq, char* out) const { return format_event_id(epoch_, seq, out); }

ReplayResult Hub::subscribe_after(std::string_view name, Subscriber* subscriber, std::uint32_t cookie,
                                  std::string_view last_id) {
  const HubStatus status = subscribe(name, subscriber, cookie);
  if (status != HubStatus::ok) return {status};
  const Topic& topic = *topics_.find(name)->second;
  std::uint64_t after = 0;
  if (const char* reset = check_replayable(topic, last_id, after)) return {HubStatus::ok, 0, reset};
  ReplayResult result{HubStatus::ok};
  for (std::size_t i = 0; i < topic.history.size(); ++i) {
    if (topic.history.at(i).tag.id <= after) continue;
    replay_one(topic, topic.history.at(i), subscriber, cookie);
    ++result.replayed;
  }
  return result;
}

// Replays are rare and per subscriber, so they may copy and allocate.
void Hub::replay_one(const Topic& topic, const conn::QueuedFrame& kept, Subscriber* subscriber,
                     std::uint32_t cookie) {
  std::string bytes(kept.frame.size(), '\0');
  kept.frame.copy_to(bytes.data(), bytes.size());
  const auto event_length = static_cast<std::size_t>(static_cast<unsigned char>(bytes[0]));
  char id_text[kMaxIdText];
  std::string scratch;
  EventFrames frames(pool_, deflater_, scratch,
                     {topic.name, {id_text, format_id(kept.tag.id, id_text)},
                      std::string_view(bytes).substr(1, event_length), std::string_view(bytes).substr(1 + event_length)});
  subscriber->deliver(Delivery{topic.name, cookie, kept.tag.id, kept.tag.key, frames});
}

// Finds the sequence to replay after, or says why every event after
// `last_id` cannot be replayed.
const char* Hub::check_replayable(const Topic& topic, std::string_view last_id, std::uint64_t& after) const {
  const ParsedId id = parse_event_id(last_id);
  if (!id.ok) return "malformed-id";
  if (id.epoch != epoch_) return "other-epoch";
  const std::uint64_t newest = topic.next_id - 1;
  if (id.seq > newest) return "unknown-id";
  const std::uint64_t oldest_kept = topic.history.empty() ? topic.next_id : topic.history.oldest_seq();
  if (id.seq + 1 < oldest_kept) return "too-old";
  after = id.seq;
  return nullptr;
}

std::size_t Hub::subscriber_count(std::string_view name) const {
  auto it = topics_.find(name);
  return it == topics_.end() ? 0 : it->second->subscribers.size();
}

}  // namespace sluice::hub
