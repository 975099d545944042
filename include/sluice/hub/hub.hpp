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
#include "sluice/conn/frame_ring.hpp"
#include "sluice/hub/event_frames.hpp"
#include "sluice/proto/ws_deflate.hpp"

namespace sluice::hub {

struct Delivery {
  std::string_view topic;
  std::uint32_t cookie;  // what the subscriber gave subscribe() for this topic
  std::uint64_t id;      // the event's sequence in its topic
  std::uint64_t key;     // conflation key: a hash of the publisher's key, 0 if none
  EventFrames& frames;   // the event in each wire format, built on first use
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
  std::size_t history_events = 1000;     // per topic, for replay
  std::size_t history_bytes = 1 << 20;   // per topic
};

struct Message {
  std::string_view data;
  std::string_view event;  // SSE event name; empty: "message"
  std::string_view key;    // what `latest` conflates by; empty: the topic
};

enum class HubStatus : std::uint8_t {
  ok,
  bad_topic,         // not a valid topic name
  bad_event,         // event name with CR, LF or NUL, or over 255 bytes
  too_many_topics,   // max_topics reached
  too_many_subscribers,
  no_memory,         // the pool refused the event's blocks (data lane)
};

// What subscribe_after() could replay.
struct ReplayResult {
  HubStatus status;
  std::size_t replayed = 0;
  // Non-null when the events after the given id are not all kept (or the
  // id is not one of ours): the subscriber gets live events only and
  // should tell its client why ("too-old", "other-epoch", "unknown-id",
  // "malformed-id").
  const char* reset = nullptr;
};

struct PublishResult {
  HubStatus status;
  std::uint64_t id = 0;
  std::size_t subscribers = 0;  // how many subscribers were handed the event
};

class Hub {
 public:
  // `pool` must outlive the hub; event frames come from its data lane.
  // `epoch` names this run of the server in every event id.
  Hub(buf::Pool& pool, const HubLimits& limits, std::string epoch);
  ~Hub();
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  // `cookie` comes back in every Delivery for this topic (the subscriber's
  // own index for it, say).
  [[nodiscard]] HubStatus subscribe(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie = 0);
  // Subscribes, then at once hands `subscriber` every kept event after
  // `last_id` in order, so no live event can come between the replay and
  // the live stream, and none twice.
  [[nodiscard]] ReplayResult subscribe_after(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie,
                                             std::string_view last_id);
  // No-op when `subscriber` is not on `topic`.
  void unsubscribe(std::string_view topic, Subscriber* subscriber);

  // Never allocates once the topic exists (its frame comes from the pool).
  [[nodiscard]] PublishResult publish(std::string_view topic, const Message& message);

  [[nodiscard]] std::size_t topic_count() const { return topics_.size(); }
  [[nodiscard]] const std::string& epoch() const { return epoch_; }
  // Writes the text id of event `seq` into `out` (kMaxIdText bytes).
  std::size_t format_id(std::uint64_t seq, char* out) const;
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
  void keep_in_history(Topic& topic, std::uint64_t id, std::uint64_t key, const Message& message);
  std::size_t deliver_all(Topic& topic, std::uint64_t id, std::uint64_t key, EventFrames& frames);
  void replay_one(const Topic& topic, const conn::QueuedFrame& kept, Subscriber* subscriber, std::uint32_t cookie);
  const char* check_replayable(const Topic& topic, std::string_view last_id, std::uint64_t& after) const;

  buf::Pool& pool_;
  HubLimits limits_;
  std::string epoch_;
  proto::ws::Deflater deflater_;  // compresses shared WebSocket frames
  std::string scratch_;           // reused for JSON envelopes
  TopicMap topics_;
};

}  // namespace sluice::hub
