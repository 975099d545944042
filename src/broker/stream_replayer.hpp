// Owns: StreamReplayer, fetching a stretch of a topic's stream for a client
// that resumes by id (Last-Event-ID, `since`) on a node whose own history
// does not reach back to it.
//
// The node knows where its live stream of the topic stands (`upto`, the
// last event its subscribers get from the reader); the client names the
// last event it saw (`after`). The events owed are exactly after+1..upto,
// so the request is XRANGE after upto, `after` included: the stream's ids
// have no holes, so the answer is whole only if it begins with `after`
// itself and runs without a hole to `upto`. Anything else is a reset with
// its reason (continuity.hpp), never a silent gap: `after` trimmed away
// (too-old), from a stream Redis no longer has (other-epoch), or not there
// at all (unknown-id).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/redis_link.hpp"
#include "broker/replies.hpp"

namespace sluice::broker {

enum class ReplayStart : std::uint8_t {
  accepted,     // the handler will be called
  unavailable,  // Redis is not reachable now
  busy,         // too many requests wait for Redis
  other_epoch,  // `after` is not of `upto`'s stream: reset at once, nothing asked
  too_old,      // more than max_events after `after`: reset at once, nothing asked
};

enum class ReplayStatus : std::uint8_t {
  ok,      // `entries` are after+1..upto, in order
  reset,   // `reset` says why not
  failed,  // no answer (timed out, connection lost) or an error; `error` says which
};

struct ReplayAnswer {
  ReplayStatus status = ReplayStatus::failed;
  std::span<const StreamEntry> entries;  // valid during the call
  const char* reset = nullptr;
  std::string_view error;
};

class ReplayHandler {
 public:
  virtual void on_replay(std::uint64_t tag, const ReplayAnswer& answer) = 0;

 protected:
  ~ReplayHandler() = default;
};

class StreamReplayer final : private ReplyHandler {
 public:
  // `max_events`: the longest replay (history.max_events); `max_data`: the
  // largest event's data.
  StreamReplayer(RedisLink& link, std::string prefix, std::size_t max_events, std::size_t max_data);
  ~StreamReplayer();
  StreamReplayer(const StreamReplayer&) = delete;
  StreamReplayer& operator=(const StreamReplayer&) = delete;

  [[nodiscard]] ReplayStart replay(std::string_view topic, StreamId after, StreamId upto, ReplayHandler& handler,
                                   std::uint64_t tag);

 private:
  struct Waiting {
    ReplayHandler* handler;
    std::uint64_t tag;
    StreamId after;
    StreamId upto;
  };

  void on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) override;
  [[nodiscard]] ReplayAnswer judge(const Waiting& w, const redisReply* reply);

  RedisLink& link_;
  const std::string prefix_;
  const std::size_t max_events_;
  const std::size_t max_data_;
  std::string command_;
  std::vector<StreamEntry> entries_;  // reused for every answer
  std::vector<Waiting> waiting_;      // a ring, in the order Redis answers
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

}  // namespace sluice::broker
