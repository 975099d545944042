// Owns: Hub, the topics of one loop, their subscribers, and publishing: an
// event gets the topic's next id, is encoded once per wire format into a
// shared Frame, and a reference is handed to every subscriber.
//
// The hub never writes to a socket; a Subscriber decides what to do with a
// frame (queue it, or apply its slow-consumer policy). A subscriber may
// unsubscribe, or close, from inside deliver(): removal during a publish is
// recorded and applied when the publish ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sluice/buf/frame.hpp"
#include "sluice/buf/pool.hpp"

namespace sluice::hub {

struct Delivery {
  std::string_view topic;
  std::uint32_t cookie;  // what the subscriber gave subscribe() for this topic
  std::uint64_t id;
  std::uint64_t key;  // conflation key: a hash of the publisher's key, 0 if none
  const buf::FrameRef& sse;  // the event as Server-Sent Events bytes
};

class Subscriber {
 public:
  virtual void deliver(const Delivery& delivery) = 0;

 protected:
  ~Subscriber() = default;
};

struct HubLimits {
  std::size_t max_topics = 10000;
  std::size_t max_topic_name = 128;
  std::size_t max_subscribers_per_topic = 100000;
};

struct Message {
  std::string_view data;
  std::string_view event;  // SSE event name; empty: "message"
  std::string_view key;    // what `latest` conflates by; empty: the topic
};

enum class HubStatus : std::uint8_t {
  ok,
  bad_topic,         // not a valid topic name
  bad_event,         // event name with CR or LF
  too_many_topics,   // max_topics reached
  too_many_subscribers,
  no_memory,         // the pool refused the event's blocks (data lane)
};

struct PublishResult {
  HubStatus status;
  std::uint64_t id = 0;
  std::size_t subscribers = 0;  // how many subscribers were handed the event
};

class Hub {
 public:
  // `pool` must outlive the hub; event frames come from its data lane.
  Hub(buf::Pool& pool, const HubLimits& limits);
  ~Hub();
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  // `cookie` comes back in every Delivery for this topic (the subscriber's
  // own index for it, say).
  [[nodiscard]] HubStatus subscribe(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie = 0);
  // No-op when `subscriber` is not on `topic`.
  void unsubscribe(std::string_view topic, Subscriber* subscriber);

  // Never allocates once the topic exists (its frame comes from the pool).
  [[nodiscard]] PublishResult publish(std::string_view topic, const Message& message);

  [[nodiscard]] std::size_t topic_count() const { return topics_.size(); }
  [[nodiscard]] std::size_t subscriber_count(std::string_view topic) const;
  [[nodiscard]] const HubLimits& limits() const { return limits_; }

 private:
  struct Topic;
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using TopicMap = std::unordered_map<std::string, std::unique_ptr<Topic>, NameHash, std::equal_to<>>;

  Topic* find_or_create(std::string_view name, HubStatus& status);
  buf::FrameRef encode_sse(std::uint64_t id, const Message& message);

  buf::Pool& pool_;
  HubLimits limits_;
  TopicMap topics_;
};

}  // namespace sluice::hub
