// Owns: RedisLink, one connection from one loop to one Redis instance: it
// connects and reconnects, sends commands, and answers every request it
// accepted exactly once, within a bounded time, with a bounded number
// waiting.
//
// Life of a link:
//   connecting  TCP connect and a PING, both within connect_timeout; only a
//               PONG makes the link `up` (a Redis that is stopped still
//               completes TCP handshakes from its listen backlog).
//   up          submit() writes the command at the end of the tick (all the
//               tick's commands in one write) and its answer comes to the
//               request's ReplyHandler. A link with nothing pending for
//               request_timeout sends a PING of its own, held to the same
//               timeout: a Redis stopped or cut off while nobody asked it
//               anything is found within two timeouts, not at the next
//               request (a node with no traffic answered /healthz 200).
//   down        the connection broke, timed out or was refused; every
//               pending request was answered (timed_out or link_lost), and
//               the link tries again after a back-off (backoff.hpp).
// Redis answers a connection's commands in order, so a request that has
// waited past its time means every later one is stuck behind it: the
// connection is closed and all of them are answered at once. Nothing is
// queued while the link is not up: submit() says `unavailable` and the
// caller decides (a publish answers 503; a reader waits for link_up).
//
// Everything runs on the loop's thread. A link must not be destroyed from
// inside one of its own callbacks; destroying it drops pending requests
// without answering them.
#pragma once

#include <hiredis/async.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "broker/backoff.hpp"
#include "broker/endpoint.hpp"
#include "broker/hiredis_loop.hpp"
#include "io/loop.hpp"

namespace sluice::broker {

struct LinkLimits {
  std::chrono::milliseconds connect_timeout{1000};  // broker.connect_timeout_ms: TCP connect and PING
  std::chrono::milliseconds request_timeout{2000};  // broker.request_timeout_ms: past a blocking read's own wait
  std::size_t max_pending = 1024;                   // broker.max_pending: requests sent and not yet answered
  std::size_t max_pending_bytes = 8 << 20;          // broker.max_pending_bytes: their commands' bytes
  std::size_t max_reply_bytes = 64 << 20;           // broker.max_reply_bytes: one answer, built
  std::chrono::milliseconds reconnect_min{100};     // broker.reconnect_min_ms: first back-off
  std::chrono::milliseconds reconnect_max{5000};    // broker.reconnect_max_ms: longest back-off
};

enum class LinkState : std::uint8_t { connecting, up, down };

// What submit() did with a request.
enum class Submit : std::uint8_t {
  accepted,     // its handler will be called exactly once
  unavailable,  // the link is not up; nothing was sent
  full,         // max_pending requests, or max_pending_bytes, are waiting
  too_large,    // the command alone is over max_pending_bytes
};

// How a request ended.
enum class Outcome : std::uint8_t {
  reply,      // Redis answered (possibly with an error reply)
  timed_out,  // no answer in time; the connection was closed
  link_lost,  // the connection closed before the answer came
};

[[nodiscard]] const char* to_string(Submit submit);
[[nodiscard]] const char* to_string(Outcome outcome);

class ReplyHandler {
 public:
  // Exactly once per accepted request, on the loop's thread. `reply` is
  // non-null only for Outcome::reply and valid during the call. The handler
  // may submit further requests.
  virtual void on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) = 0;

 protected:
  ~ReplyHandler() = default;
};

class LinkListener {
 public:
  // The link became `up`: requests may be submitted.
  virtual void link_up() = 0;
  // The link left `up`; every pending request has been answered. `why` is
  // one line. (Attempts that fail before `up` are only counted: failures().)
  virtual void link_down(std::string_view why) = 0;

 protected:
  ~LinkListener() = default;
};

class RedisLink final : private HiredisLoop::Owner, private ReplyHandler {
 public:
  // Connects at once. `listener` may be null and must outlive the link.
  RedisLink(io::Loop& loop, Endpoint endpoint, const LinkLimits& limits, LinkListener* listener);
  ~RedisLink();
  RedisLink(const RedisLink&) = delete;
  RedisLink& operator=(const RedisLink&) = delete;

  // Sends one command in RESP (see commands.hpp). `blocking` is how long
  // Redis itself may hold the answer (an XREAD's BLOCK): the request's time
  // is that plus request_timeout. Never allocates when refused; the bytes
  // are copied before it returns.
  [[nodiscard]] Submit submit(std::string_view command, ReplyHandler& handler, std::uint64_t tag,
                              std::chrono::milliseconds blocking = std::chrono::milliseconds(0));

  // Requests of `handler` still pending will be answered to nobody: for a
  // handler that goes away before the link.
  void forget(ReplyHandler& handler);
  // Replaces the listener (null: none). Must outlive the link or be
  // replaced before it goes.
  void set_listener(LinkListener* listener) { listener_ = listener; }

  // Closes the connection (answering pending requests link_lost) and
  // reconnects after the back-off. For a caller that found Redis's answers
  // unusable; safe inside a ReplyHandler. The link coming up again does not
  // start the back-off over: what made the answers unusable (Redis loading
  // a dump, a script running) is likely to end the next connection too.
  void reset(std::string_view why);

  [[nodiscard]] LinkState state() const { return state_; }
  [[nodiscard]] const LinkLimits& limits() const { return limits_; }
  [[nodiscard]] const Endpoint& endpoint() const { return endpoint_; }
  [[nodiscard]] std::size_t pending() const { return pending_count_; }
  [[nodiscard]] std::size_t pending_bytes() const { return pending_bytes_; }
  [[nodiscard]] std::uint64_t times_up() const { return times_up_; }
  [[nodiscard]] std::uint64_t failures() const { return failures_total_; }
  // The losses in a row the next wait before trying again is drawn for.
  [[nodiscard]] std::uint32_t failures_in_a_row() const { return backoff_.failures(); }
  [[nodiscard]] const std::string& last_error() const { return last_error_; }
  // The connection was last closed for an answer over max_reply_bytes.
  [[nodiscard]] bool answer_too_large() const { return answer_too_large_; }

 private:
  struct Pending {
    ReplyHandler* handler;
    std::uint64_t tag;
    io::Loop::Clock::time_point deadline;
    std::size_t bytes;
  };

  static void on_reply_callback(redisAsyncContext* context, void* reply, void* link);
  static void on_connect_callback(const redisAsyncContext* context, int status);

  void connect();
  void context_released() override;
  void input_over_budget() override;
  void on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) override;  // the link's own PINGs
  [[nodiscard]] bool enqueue(std::string_view command, ReplyHandler& handler, std::uint64_t tag,
                             io::Loop::Clock::time_point deadline);
  void answer_head(const redisReply* reply);
  void watch();
  void close_connection(Outcome outcome, std::string_view why);
  void back_off();

  io::Loop& loop_;
  const Endpoint endpoint_;
  const LinkLimits limits_;
  LinkListener* listener_;
  HiredisLoop events_;
  ReplyBudget budget_;
  bool answer_too_large_ = false;
  bool reset_by_owner_ = false;  // the last connection ended by reset()
  redisAsyncContext* context_ = nullptr;
  LinkState state_ = LinkState::down;
  bool was_up_ = false;
  bool closing_ = false;      // answering what is pending because the connection goes
  bool destroying_ = false;   // the destructor runs: answer nobody
  Outcome closing_outcome_ = Outcome::link_lost;
  // Pending requests in the order Redis answers them: a ring allocated once,
  // max_pending plus the handshake's PING.
  std::vector<Pending> ring_;
  std::size_t head_ = 0;
  std::size_t pending_count_ = 0;
  std::size_t pending_bytes_ = 0;
  io::Loop::Clock::time_point connect_deadline_{};
  io::Loop::Clock::time_point quiet_since_{};  // when the last pending request was answered
  io::Loop::Clock::time_point retry_at_{};
  std::uint64_t times_up_ = 0;
  std::uint64_t failures_total_ = 0;
  std::string last_error_;
  std::string scratch_;  // the link's own PING
  Backoff backoff_;
  io::Loop::TimerId watchdog_ = 0;
};

}  // namespace sluice::broker
