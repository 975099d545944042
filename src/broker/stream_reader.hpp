// Owns: StreamReader, one loop's reading of the topics it follows from one
// Redis instance, over one connection of its own.
//
// The reader keeps a bounded set of topics (FollowedSet) and one request on
// its connection at a time: XREAD COUNT read_count BLOCK read_block_ms over
// every topic it reads, each from the last entry it handed over. When the
// answer comes it hands each entry to the StreamSink, in order, and asks
// again at once. So a busy node reads many topics per round trip, and an
// idle one waits inside Redis rather than polling.
//
// A topic joins in two steps: its stream's newest id is asked for
// (XREVRANGE + - COUNT 1, pipelined behind the read), and the topic is read
// from there. Reading from the newest id found, never from "$" (whatever is
// newest when the read runs), is what keeps events from being lost while
// the set changes. A blocked XREAD is cut short (CLIENT UNBLOCK, sent over
// another connection of the same loop) so that a new topic does not wait
// out read_block_ms; without that connection it does.
//
// When the connection comes back after a fault, every topic's position is
// checked against its stream before reading on (continuity.hpp): the same
// stream continues where it was; a replaced, lost or rewound stream is told
// to the sink as a reset. While reading, a hole in the ids is told as a gap
// (entries trimmed before this node read them, the node having fallen more
// than the stream's MAXLEN behind). Nothing is skipped silently.
//
// What one read brings is bounded twice: by read_count per topic, and by
// the connection's broker.max_reply_bytes for the whole answer; an answer
// past it closes the connection, and the reader asks for a quarter as many
// entries per topic from then on, doubling again with each answer that
// fits. And the sink may hold a topic it has no room for (Take::hold): the
// topic is left out of reads until resume(), so the backlog stays in Redis.
//
// Everything runs on the loop's thread; the sink may follow and unfollow
// topics from inside its calls.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "broker/commands.hpp"
#include "broker/followed_set.hpp"
#include "broker/redis_link.hpp"
#include "broker/replies.hpp"

namespace sluice::broker {

struct ReaderLimits {
  std::string prefix = "sluice:";       // broker.prefix
  std::size_t max_topics = 10000;        // broker.read_max_topics: topics one reader follows
  std::size_t read_count = 100;          // broker.read_count: entries per topic per read
  std::chrono::milliseconds block{1000};  // broker.read_block_ms: how long Redis holds an empty read
  std::size_t max_data = 1 << 20;        // bytes of one event's data (the publish limit)
};

// What the sink did with an event.
enum class Take : std::uint8_t {
  accepted,
  // No room now (the node's loops have yet to deliver what they hold):
  // the topic is not read further until resume(), and this event comes
  // again then. Redis holds the backlog, not this process.
  hold,
};

// Where the reader's findings go (the hub, once wired).
class StreamSink {
 public:
  // `topic` is read from after `position` ({0, 0}: from its stream's first
  // entry, the stream not existing yet). Called once per follow().
  virtual void on_started(std::string_view topic, StreamId position) = 0;
  // `topic`, followed from a position (follow_from(), or again after a
  // reconnect), was found to continue there: it is read on from that
  // position, and `newest` is its stream's newest entry as Redis answered.
  // Not called when the check finds a reset (on_reset() says which).
  virtual void on_continued(std::string_view /*topic*/, StreamId /*newest*/) {}
  // The next event of `topic`, in id order. Views live during the call.
  virtual Take on_event(std::string_view topic, const StreamEntry& entry) = 0;
  // Events first..last were trimmed from the stream before they were read.
  virtual void on_gap(std::string_view topic, StreamId first, StreamId last) = 0;
  // What comes next does not continue what came before (continuity.hpp).
  virtual void on_reset(std::string_view topic, const char* reason) = 0;
  // The topic's key cannot be read as a stream (Redis's error is `why`);
  // it is no longer followed.
  virtual void on_refused(std::string_view topic, std::string_view why) = 0;

 protected:
  ~StreamSink() = default;
};

enum class FollowStatus : std::uint8_t {
  ok,
  already,  // the topic is followed already
  full,     // read_max_topics topics, or the read would not fit broker.max_pending_bytes
};

class StreamReader final : private LinkListener, private ReplyHandler {
 public:
  // `link` is the reader's own connection (the reader becomes its
  // listener); `unblocker` another connection to the same instance, or
  // null. Both must outlive the reader.
  StreamReader(RedisLink& link, RedisLink* unblocker, ReaderLimits limits, StreamSink& sink);
  ~StreamReader();
  StreamReader(const StreamReader&) = delete;
  StreamReader& operator=(const StreamReader&) = delete;

  // Follows `topic` from its stream's newest entry (on_started says which).
  [[nodiscard]] FollowStatus follow(std::string_view topic);
  // Follows `topic` from `position`, the last event the caller has; it is
  // checked first like a position after a reconnect.
  [[nodiscard]] FollowStatus follow_from(std::string_view topic, StreamId position);
  void unfollow(std::string_view topic);
  // Reads a topic the sink held again, from the event it held.
  void resume(std::string_view topic);

  [[nodiscard]] std::size_t followed() const { return topics_.size(); }
  [[nodiscard]] bool reading() const { return read_serial_ != 0; }
  // Reads answered, and reads cut short by CLIENT UNBLOCK (for tests and metrics).
  [[nodiscard]] std::uint64_t reads() const { return reads_; }
  // Entries gone past as unusable here (replies.hpp).
  [[nodiscard]] std::uint64_t unusable() const { return unusable_; }
  [[nodiscard]] std::uint64_t unblocks() const { return unblocks_; }

 private:
  // What a request was, the top byte of its tag.
  static constexpr std::uint8_t kClientId = 1;
  static constexpr std::uint8_t kLocate = 2;
  static constexpr std::uint8_t kRead = 3;
  static constexpr std::uint8_t kUnblock = 4;

  FollowStatus add(std::string_view topic, bool has_position, StreamId position);
  void link_up() override;
  void link_down(std::string_view why) override;
  void on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) override;
  void on_located(std::size_t index, std::uint32_t serial, const redisReply* reply);
  void on_read(const redisReply* reply);
  void deliver(const TopicEntry& item);
  [[nodiscard]] bool locate_every_read_topic();
  void locate_waiting();
  void maybe_read();
  void cut_read_short();
  [[nodiscard]] std::size_t read_bytes_with(std::string_view topic) const;

  RedisLink& link_;
  RedisLink* unblocker_;
  const ReaderLimits limits_;
  StreamSink& sink_;
  FollowedSet topics_;
  std::size_t locating_ = 0;        // locate requests on the wire
  std::size_t name_bytes_ = 0;      // the followed topics' names, for the read's size
  std::int64_t client_id_ = -1;     // the reader's connection, as CLIENT UNBLOCK names it
  std::uint32_t read_serial_ = 0;   // the read on the wire, 0 when none
  std::size_t read_streams_ = 0;    // topics it named
  // Entries per topic per read: read_count, cut after an answer too large
  // for broker.max_reply_bytes and grown back as answers fit.
  std::size_t count_;
  std::uint32_t next_read_serial_ = 1;
  bool unblocking_ = false;         // an UNBLOCK is on the wire
  int unblock_tries_ = 0;
  // A read refused for a key's type sent every topic to be located, and
  // neither a read has succeeded since nor a key been refused: refused
  // again, the link is made anew.
  bool relocated_for_type_ = false;
  std::uint64_t reads_ = 0;
  std::uint64_t unusable_ = 0;
  std::uint64_t unblocks_ = 0;
  std::string command_;             // reused for every command
  std::string topic_scratch_;       // a topic's name while the sink may unfollow it
  std::vector<ReadCursor> cursors_;  // reused for every read
  std::vector<TopicEntry> entries_;  // reused for every answer
};

}  // namespace sluice::broker
