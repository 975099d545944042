#include "sluice/hub/hub.hpp"

#include <algorithm>
#include <charconv>

#include "sluice/hub/topic_name.hpp"
#include "sluice/proto/sse.hpp"

namespace sluice::hub {

struct Hub::Topic {
  struct Entry {
    Subscriber* subscriber;
    std::uint32_t cookie;
  };
  std::string name;
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

Hub::Hub(buf::Pool& pool, const HubLimits& limits) : pool_(pool), limits_(limits) {}

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
  auto topic = std::make_unique<Topic>();
  topic->name = std::string(name);
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
  if (!proto::sse::valid_field(message.event)) return {HubStatus::bad_event};
  HubStatus status;
  Topic* topic = find_or_create(name, status);
  if (topic == nullptr) return {status};
  const std::uint64_t id = topic->next_id;
  const buf::FrameRef sse = encode_sse(id, message);
  if (!sse) return {HubStatus::no_memory};
  ++topic->next_id;

  PublishResult result{HubStatus::ok, id, 0};
  const std::uint64_t key = conflation_key(message.key);
  topic->publishing = true;
  // Index loop: deliver() may subscribe others, which can grow the vector.
  for (std::size_t i = 0; i < topic->subscribers.size(); ++i) {
    const Topic::Entry entry = topic->subscribers[i];
    if (entry.subscriber == nullptr) continue;
    entry.subscriber->deliver(Delivery{topic->name, entry.cookie, id, key, sse});
    ++result.subscribers;
  }
  topic->publishing = false;
  if (topic->has_holes) {
    std::erase_if(topic->subscribers, [](const Topic::Entry& e) { return e.subscriber == nullptr; });
    topic->has_holes = false;
  }
  return result;
}

buf::FrameRef Hub::encode_sse(std::uint64_t id, const Message& message) {
  char id_text[24];
  const auto [end, ec] = std::to_chars(id_text, id_text + sizeof id_text, id);
  const proto::sse::Event event{std::string_view(id_text, static_cast<std::size_t>(end - id_text)), message.event,
                                message.data};
  buf::FrameBuilder builder(pool_, buf::Lane::data);
  if (proto::sse::encode(event, builder) != proto::sse::EncodeStatus::ok) return {};
  return builder.finish();
}

std::size_t Hub::subscriber_count(std::string_view name) const {
  auto it = topics_.find(name);
  return it == topics_.end() ? 0 : it->second->subscribers.size();
}

}  // namespace sluice::hub
