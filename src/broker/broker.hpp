// Owns: Broker, what one event loop of a node sees of the topics every
// node shares: publish an event to a topic, follow the topics this node has
// subscribers for, and fetch a stretch of a topic's past for a client that
// resumes by id here after reading it elsewhere. docs/BROKER.md is the
// design; this is the seam the hub plugs into.
//
// The hub's side of it, once wired:
//   - a publish (HTTP POST, WebSocket publisher, Server::publish) calls
//     publish() on its own loop's broker and answers the client from
//     on_published(): the id on ok; 503 for unavailable and busy at once,
//     and for refused and unknown when they come (unknown: the event may
//     have been published; the client may retry and see it twice).
//   - a topic's first local subscriber makes one loop of the node (the
//     topic's reader loop) follow() it; its last one leaving unfollows it.
//     The reader hands each event to the StreamSink, which appends it to
//     the topic's history under the id it came with; the loops deliver
//     from the history as today.
//   - Last-Event-ID / since on a topic whose local history does not reach
//     back: replay() from the client's id up to the reader's position.
// Everything here runs on the loop's thread; each loop has its own Broker,
// with one command connection and one reading connection per Redis
// instance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/commands.hpp"
#include "broker/endpoint.hpp"
#include "broker/redis_link.hpp"
#include "broker/stream_id.hpp"
#include "broker/stream_publisher.hpp"
#include "broker/stream_reader.hpp"
#include "broker/stream_replayer.hpp"
#include "io/loop.hpp"

namespace sluice::broker {

// The broker.* settings (docs/BROKER.md lists keys, defaults and ranges).
struct BrokerConfig {
  std::vector<Endpoint> endpoints;  // broker.url: topics are spread over them by shard_of()
  std::string prefix = "sluice:";   // broker.prefix: a topic's stream is PREFIX + TOPIC
  std::uint64_t max_len = 1000;     // broker.max_len: MAXLEN ~ of every stream
  std::size_t max_replay = 1000;    // history.max_events: the longest replay()
  LinkLimits link;                  // per connection
  ReaderLimits reader;              // per reading connection; its prefix is `prefix`
};

// A Redis a loop cannot use: "HOST:PORT" and why, one line: the link's
// last failure (empty while its first connection is still being made), or,
// when it answers, why this node may not publish to it.
struct Unreachable {
  std::string address;
  std::string error;
  bool answers = false;  // connected: misplaced in broker.url
};

struct BrokerCounts {
  std::uint64_t link_failures = 0;
  std::uint64_t unusable_entries = 0;
};

class Broker {
 public:
  virtual ~Broker() = default;

  // Appends an event to the topic's stream. ok: `handler` hears the id (or
  // why not) later; anything else is the answer now and nothing was sent.
  [[nodiscard]] virtual PublishStatus publish(std::string_view topic, const EventFields& event,
                                              PublishHandler& handler, std::uint64_t tag) = 0;
  // Starts, moves or stops this loop's reading of a topic (StreamReader).
  [[nodiscard]] virtual FollowStatus follow(std::string_view topic) = 0;
  [[nodiscard]] virtual FollowStatus follow_from(std::string_view topic, StreamId position) = 0;
  virtual void unfollow(std::string_view topic) = 0;
  virtual void resume(std::string_view topic) = 0;
  // The events after `after` up to `upto` (StreamReplayer).
  [[nodiscard]] virtual ReplayStart replay(std::string_view topic, StreamId after, StreamId upto,
                                           ReplayHandler& handler, std::uint64_t tag) = 0;
  // A Redis this loop cannot reach now (its publishes refused and its
  // topics not read), or nothing when every one is reachable.
  [[nodiscard]] virtual std::optional<Unreachable> unreachable() const = 0;
  // Since the start, over every instance: connections that failed or were
  // lost, and entries passed over as unusable here (replies.hpp).
  [[nodiscard]] virtual BrokerCounts counts() const = 0;
};

// The Redis Streams broker of one loop. `config.endpoints` must not be
// empty. `sink` hears what this loop reads; both must outlive the broker.
[[nodiscard]] std::unique_ptr<Broker> make_redis_broker(io::Loop& loop, const BrokerConfig& config,
                                                        StreamSink& sink);

}  // namespace sluice::broker
