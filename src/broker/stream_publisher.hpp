// Owns: StreamPublisher, appending events to topics' streams from one loop
// over its command connection, through the publish script
// (publish_script.hpp), and telling each publisher the id Redis gave.
//
// The script is loaded on every new connection (SCRIPT LOAD, first in line)
// and called by its SHA-1, computed here, so publishes never wait for the
// load to be answered. Should Redis forget it (SCRIPT FLUSH) the publish is
// answered `refused` with Redis's error and the script is loaded again.
//
// What an answer means for the event:
//   ok          appended, with this id, for every node to read
//   unavailable, busy, too_large, misplaced
//               not sent: certainly not appended
//   refused     Redis answered an error (out of memory, not a stream):
//               certainly not appended
//   unknown     sent, and the connection timed out or broke before the
//               answer: the event may or may not have been appended
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "broker/commands.hpp"
#include "broker/redis_link.hpp"
#include "broker/stream_id.hpp"

namespace sluice::broker {

enum class PublishStatus : std::uint8_t { ok, unavailable, busy, too_large, refused, unknown, misplaced };

[[nodiscard]] const char* to_string(PublishStatus status);

class PublishHandler {
 public:
  // Once per accepted publish, on the loop's thread, in the order of the
  // publishes. `id` is the event's id when `status` is ok; `error` is
  // Redis's text when it is refused (valid during the call).
  virtual void on_published(std::uint64_t tag, PublishStatus status, StreamId id, std::string_view error) = 0;

 protected:
  ~PublishHandler() = default;
};

class StreamPublisher final : private LinkListener, private ReplyHandler {
 public:
  // Becomes `link`'s listener; `max_len` is the streams' MAXLEN bound;
  // `shard` is the instance's index in broker.url, of `shards`.
  StreamPublisher(RedisLink& link, std::string prefix, std::uint64_t max_len, std::uint64_t shard = 0,
                  std::uint64_t shards = 1);
  ~StreamPublisher();
  StreamPublisher(const StreamPublisher&) = delete;
  StreamPublisher& operator=(const StreamPublisher&) = delete;

  // Accepted (ok) means `handler` will hear the outcome; anything else is
  // the answer now (unavailable, busy, too_large) and nothing was sent.
  [[nodiscard]] PublishStatus publish(std::string_view topic, const EventFields& fields, PublishHandler& handler,
                                      std::uint64_t tag);

  [[nodiscard]] const std::string& script_sha() const { return sha_; }
  // Why this instance may not take this node's publishes, or empty: it is
  // marked as another index of broker.url by the node that came first, so
  // the topics this node would put there are read elsewhere by the others.
  [[nodiscard]] const std::string& misplaced() const { return misplaced_; }
  [[nodiscard]] std::uint64_t script_loads() const { return loads_; }

 private:
  struct Waiting {
    PublishHandler* handler;
    std::uint64_t tag;
  };

  void link_up() override;
  void link_down(std::string_view why) override;
  void on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) override;
  void load_script();
  void claim_shard();
  void on_claim(const redisReply* reply);

  RedisLink& link_;
  const std::string prefix_;
  const std::uint64_t max_len_;
  const std::string mark_;  // "INDEX/COUNT": where this node has the instance
  std::string misplaced_;
  bool claim_due_ = false;  // the mark is still to be asked on this connection
  std::string sha_;
  std::string command_;
  // Publishes sent, in the order Redis answers them: a ring as large as the
  // link's pending bound, allocated once.
  std::vector<Waiting> waiting_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::uint64_t loads_ = 0;
  bool loading_ = false;  // a SCRIPT LOAD is on the wire
};

}  // namespace sluice::broker
