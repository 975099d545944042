// Owns: the vocabulary shared by the topic book and the loops' hubs: limits,
// a message to publish, what a publish or subscribe answers, and the
// Subscriber interface through which events reach a connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::hub {

class EventFrames;
class EventRuns;

struct HubLimits {
  std::size_t max_topics = 10000;
  std::size_t max_topic_name = 128;
  std::size_t max_subscribers_per_topic = 100000;
  std::size_t history_events = 1000;    // per topic, for replay
  std::size_t history_bytes = 1 << 20;  // per topic
  // A topic with no subscriber and no publisher at work may be freed once
  // its newest event is this old (at once when it kept none).
  std::int64_t history_ttl_ms = 60000;
  // Topics one address may be the first to follow (each counts for it
  // until freed: TopicBook::charge_follower()); 0: no limit.
  std::size_t max_first_followed_per_address = 1000;
};

// How many more topics one connection may bring into being: a client that
// names a new topic in every request would otherwise fill topics.max alone.
// `address` stands for the client's address (0: none, as for the
// application's own calls): the topics it is the first to follow are
// counted for it across all its connections (TopicBook::charge_follower()).
struct TopicAllowance {
  std::size_t left;
  std::uint64_t address = 0;
};

// The forms of the server's notices, which no publish may take: the event
// name of an SSE notice (sluice-dropped, sluice-reset) and the opening of a
// notice on /ws/{topic} ({"sluice":"dropped",...}).
inline constexpr std::string_view kReservedEventPrefix = "sluice-";
inline constexpr std::string_view kReservedDataPrefix = "{\"sluice\":";

// What a publisher that waits for its subscribers asks of a topic
// (Server::publish_waiting), checked under the topic's lock before the event
// is taken: no fifo subscriber of it, on any loop, is short of room (its
// queue holds more than half its send budget), and no loop that follows it
// is `max_lag` or more events behind. Without room the publish answers busy.
struct RoomRule {
  std::uint64_t max_lag = 1;
};

struct Message {
  std::string_view data;
  std::string_view event;  // SSE event name; empty: "message"
  std::string_view key;    // what `latest` conflates by; empty: the topic
};

// The longest key a publish may carry, whichever way it arrives (only its
// hash is kept here, but it travels whole through a broker).
inline constexpr std::size_t kMaxKeyBytes = 255;

enum class HubStatus : std::uint8_t {
  ok,
  bad_topic,            // not a valid topic name
  bad_event,            // event name with CR, LF or NUL, or over 255 bytes
  reserved_event,       // event name starting "sluice-": the server's SSE notices
  reserved_data,        // data starting {"sluice": the server's /ws/{topic} notices
  bad_key,              // a `latest` key over kMaxKeyBytes
  too_many_topics,      // max_topics reached
  too_many_created,     // the connection's TopicAllowance is spent
  too_many_from_address,  // the address was the first to follow max_first_followed_per_address topics
  too_many_subscribers,
  no_memory,            // the pool refused the event's blocks (data lane)
  busy,                 // a loop has yet to deliver the event the history would drop (or no room under a RoomRule): retry
};

// What the book checks of a publish before taking it, for a publish that
// goes elsewhere (a broker): ok, bad_topic, bad_event, reserved_event,
// reserved_data or bad_key.
[[nodiscard]] HubStatus check_publishable(std::string_view topic, const Message& message, std::size_t max_topic_name);

struct PublishResult {
  HubStatus status;
  std::uint64_t id = 0;
  std::size_t subscribers = 0;  // subscribers of the topic when it was published
};

// What TopicBook::publish_run() answers: `published` events from the run's
// first were taken, with the ids first_id .. last_id (consecutive: one hold
// of the topic's lock). `status` is why the next one was not, or ok: all
// were, or as many as could go before the loops are told of them (the rest
// then goes in a run of its own).
struct RunResult {
  HubStatus status;
  std::size_t published = 0;
  std::uint64_t first_id = 0;
  std::uint64_t last_id = 0;
  std::size_t subscribers = 0;
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
  // The topic's newest id when the subscription began (0: none yet): what
  // a client that has received no event resumes after, so that what is
  // published before it reconnects is replayed, not missed.
  std::uint64_t newest = 0;
  // With a broker: the id is of the topic's stream but older than this
  // node keeps. The subscriber is parked (no live events) until its owner
  // has fetched stream_epoch's events after+1..newest from Redis and
  // calls Hub::attach(). Or (`paged`) the replay was longer than its page:
  // it was handed up to `after`, and waits parked for the next page.
  bool parked = false;
  bool paged = false;
  std::uint64_t stream_epoch = 0;  // with a broker: the topic's stream (0: none found yet)
  std::uint64_t after = 0;
  // With a broker: the node's reader has not placed the topic yet, and the
  // subscriber (no id of its own) is owed what comes after where it will.
  // Its owner holds the client's answer until Subscriber::placed().
  bool awaiting = false;
};

// How much of a replay a subscriber takes at once: what its queue has room
// for. The rest waits in the history while the subscriber is parked, and
// is handed over a page at a time (Hub::attach()) as the queue drains: a
// reader that resumes from far back is neither cut off nor made to lose
// what it could have had, only because the replay came in one burst.
// Zero: no bound. A page holds at least one event unless its subscriber's
// queue has no room at all (`may_be_empty`): several topics of large
// events joined at once each taking their one would pass the budget.
struct ReplayPage {
  std::size_t events = 0;
  std::size_t bytes = 0;  // as queued in the subscriber's form
  bool may_be_empty = false;
};

// What Hub::attach() did with a parked subscriber.
struct AttachResult {
  enum class Kind : std::uint8_t {
    attached,  // the rest came from the history; live from here
    paged,     // a page came from the history, up to `upto`; still parked
    overtaken,  // lossless: the history no longer reaches after+1, nothing handed
    fetch,     // the history no longer reaches after+1: fetch up to `upto`
    reset,     // the stream is not the one fetched from: live, told `reason`
    gone,      // not parked on this loop's topic (left meanwhile)
  };
  Kind kind = Kind::gone;
  std::uint64_t upto = 0;
  const char* reason = nullptr;
};

struct Delivery {
  std::string_view topic;
  std::uint32_t cookie;  // what the subscriber gave subscribe() for this topic
  std::uint64_t id;      // the event's sequence in its topic
  std::uint64_t key;     // conflation key: a hash of the publisher's key, 0 if none
  EventFrames& frames;   // the event in each wire format, built on first use
};

// Events first_id..last_id of a topic, every one of them owed to the
// subscriber, as one run per wire form (see EventRuns).
struct RunDelivery {
  std::string_view topic;
  std::uint32_t cookie;
  std::uint64_t first_id;
  std::uint64_t last_id;
  EventRuns& runs;
};

// Told when the node starts following a topic (its first loop with a
// subscriber) and when it stops (its last): a broker reads only what the
// node follows; and when a subscriber joins a topic whose key Redis
// refused (TopicRecord::reader_refused), so that the reader tries it again.
// Called from any loop's thread, under the topic's lock, so it must only
// take note (and must not touch the book).
class TopicFollower {
 public:
  virtual void following_changed(std::string_view topic) = 0;
  virtual void try_refused_again(std::string_view topic) = 0;

 protected:
  ~TopicFollower() = default;
};

class Subscriber {
 public:
  virtual void deliver(const Delivery& delivery) = 0;
  // Takes the whole run and returns true, or takes none of it and returns
  // false: the events then come one by one through deliver(), as they do
  // for a subscriber whose policy looks at each event.
  virtual bool deliver_run(const RunDelivery&) { return false; }
  // Events first..last of the topic were published but are gone before this
  // subscriber's loop could hand them over (its loop fell that far behind).
  virtual void lost(std::uint32_t cookie, std::uint64_t first, std::uint64_t last) = 0;
  // What comes next does not continue what came before (a broker's stream
  // was replaced or lost): `reason` says why, and ids start afresh.
  virtual void reset(std::uint32_t /*cookie*/, const char* /*reason*/) {}
  // A subscriber that joined `awaiting` (ReplayResult): the node's reader
  // now knows where the topic stands, and the subscriber is owed every
  // event after `newest` of stream `epoch` (0: the stream does not exist
  // yet, and it is owed all of it). Called before any event or notice of
  // the topic reaches it.
  virtual void placed(std::uint32_t /*cookie*/, std::uint64_t /*epoch*/, std::uint64_t /*newest*/) {}
  // A publisher that waited for room on the topic gave up (its wait ran
  // out): a fifo subscriber still short of room is cut off, as one past its
  // budget would be, so that the others go on.
  virtual void stalled(std::uint32_t /*cookie*/) {}

 protected:
  ~Subscriber() = default;
};

}  // namespace sluice::hub
