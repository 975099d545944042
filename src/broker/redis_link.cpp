#include "broker/redis_link.hpp"

#include <algorithm>
#include <random>

#include "broker/commands.hpp"
#include "broker/replies.hpp"

namespace sluice::broker {

namespace {

using Clock = io::Loop::Clock;
using std::chrono::milliseconds;

// The tags of the link's own PINGs: the one that brings it up, and the one
// a quiet link sends to find out whether Redis is still there.
constexpr std::uint64_t kHandshakePing = 0;
constexpr std::uint64_t kQuietPing = 1;

// How often deadlines are looked at: a request is answered at most this
// much after its time. A quarter of the shortest time involved, so that a
// deadline is missed by little, within 1-250 ms.
milliseconds watch_period(const LinkLimits& l) {
  const milliseconds shortest = std::min({l.connect_timeout, l.request_timeout, l.reconnect_min});
  return std::clamp(shortest / 4, milliseconds(1), milliseconds(250));
}

std::uint64_t strong_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace

const char* to_string(Submit submit) {
  switch (submit) {
    case Submit::accepted:
      return "accepted";
    case Submit::unavailable:
      return "Redis is not reachable";
    case Submit::full:
      return "too many requests wait for Redis (broker.max_pending, broker.max_pending_bytes)";
    case Submit::too_large:
      return "the command is larger than broker.max_pending_bytes";
  }
  return "?";
}

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::reply:
      return "answered";
    case Outcome::timed_out:
      return "Redis did not answer in time (broker.request_timeout_ms)";
    case Outcome::link_lost:
      return "the connection to Redis was lost";
  }
  return "?";
}

RedisLink::RedisLink(io::Loop& loop, Endpoint endpoint, const LinkLimits& limits, LinkListener* listener)
    : loop_(loop),
      endpoint_(std::move(endpoint)),
      limits_(limits),
      listener_(listener),
      events_(loop, *this),
      budget_{limits.max_reply_bytes},
      ring_(std::max<std::size_t>(limits.max_pending, 1)),
      backoff_(limits.reconnect_min, limits.reconnect_max, strong_seed()) {
  watchdog_ = loop_.every(watch_period(limits_), [this] { watch(); });
  connect();
}

RedisLink::~RedisLink() {
  destroying_ = true;
  loop_.cancel(watchdog_);
  if (context_ != nullptr) redisAsyncFree(context_);
}

void RedisLink::connect() {
  state_ = LinkState::connecting;
  connect_deadline_ = Clock::now() + limits_.connect_timeout;
  context_ = redisAsyncConnect(endpoint_.host.c_str(), endpoint_.port);
  if (context_ == nullptr || context_->err != 0) {
    last_error_ = context_ == nullptr ? "out of memory" : context_->errstr;
    if (context_ != nullptr) redisAsyncFree(context_);  // not attached yet: no hook runs
    context_ = nullptr;
    back_off();
    return;
  }
  context_->data = this;
  budget_ = ReplyBudget{limits_.max_reply_bytes};
  if (const int rc = events_.attach(context_, budget_); rc != 0) {
    last_error_ = "cannot watch the socket";
    redisAsyncFree(context_);
    context_ = nullptr;
    back_off();
    return;
  }
  redisAsyncSetConnectCallback(context_, on_connect_callback);
}

// TCP is up; the link is up once Redis answers a PING, which a stopped or
// still loading Redis does not.
void RedisLink::on_connect_callback(const redisAsyncContext* context, int status) {
  auto* link = static_cast<RedisLink*>(context->data);
  if (status != REDIS_OK) {
    link->last_error_ = context->errstr;
    return;  // hiredis releases the context next
  }
  write_ping(link->scratch_);
  if (!link->enqueue(link->scratch_, *link, kHandshakePing, link->connect_deadline_)) {
    link->last_error_ = "cannot send PING";
  }
}

void RedisLink::on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) {
  if (outcome != Outcome::reply) return;  // the connection is going already
  if (tag == kQuietPing) {
    if (!is_pong(reply)) close_connection(Outcome::link_lost, "Redis did not answer PING with PONG");
    return;
  }
  if (!is_pong(reply)) {
    const bool error = reply->type == REDIS_REPLY_ERROR || reply->type == REDIS_REPLY_STATUS;
    close_connection(Outcome::link_lost,
                     std::string("Redis answered PING with ") + (error ? std::string(reply->str, reply->len) : "?"));
    return;
  }
  state_ = LinkState::up;
  was_up_ = true;
  // A link lost to an answer too large, or reset by its owner, does not
  // count as come back: the same entry ends it again at the next read (or
  // Redis, still loading, answers as before), and starting the back-off
  // over had it call Redis ten times a second, reading the entry each time.
  if (!answer_too_large_ && !reset_by_owner_) backoff_.reset();
  answer_too_large_ = false;
  reset_by_owner_ = false;
  ++times_up_;
  if (listener_ != nullptr) listener_->link_up();
}

Submit RedisLink::submit(std::string_view command, ReplyHandler& handler, std::uint64_t tag,
                         std::chrono::milliseconds blocking) {
  if (state_ != LinkState::up || closing_ || context_ == nullptr) return Submit::unavailable;
  if (command.size() > limits_.max_pending_bytes) return Submit::too_large;
  if (pending_count_ >= ring_.size() || pending_bytes_ + command.size() > limits_.max_pending_bytes) {
    return Submit::full;
  }
  const Clock::time_point deadline = Clock::now() + limits_.request_timeout + blocking;
  return enqueue(command, handler, tag, deadline) ? Submit::accepted : Submit::unavailable;
}

bool RedisLink::enqueue(std::string_view command, ReplyHandler& handler, std::uint64_t tag,
                        Clock::time_point deadline) {
  ring_[(head_ + pending_count_) % ring_.size()] = Pending{&handler, tag, deadline, command.size()};
  ++pending_count_;
  pending_bytes_ += command.size();
  if (redisAsyncFormattedCommand(context_, on_reply_callback, this, command.data(), command.size()) != REDIS_OK) {
    --pending_count_;
    pending_bytes_ -= command.size();
    return false;
  }
  return true;
}

void RedisLink::on_reply_callback(redisAsyncContext*, void* reply, void* link) {
  static_cast<RedisLink*>(link)->answer_head(static_cast<const redisReply*>(reply));
}

// hiredis calls back once per command, in order, and with no reply for
// each one still pending when the connection goes.
void RedisLink::answer_head(const redisReply* reply) {
  if (pending_count_ == 0) return;
  const Pending request = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --pending_count_;
  pending_bytes_ -= request.bytes;
  if (pending_count_ == 0) quiet_since_ = loop_.now();
  if (destroying_ || request.handler == nullptr) return;
  if (reply == nullptr) {
    closing_ = true;  // no new request joins a connection that is going
    request.handler->on_reply(request.tag, closing_outcome_, nullptr);
  } else {
    request.handler->on_reply(request.tag, Outcome::reply, reply);
  }
}

void RedisLink::forget(ReplyHandler& handler) {
  for (std::size_t i = 0; i < pending_count_; ++i) {
    Pending& request = ring_[(head_ + i) % ring_.size()];
    if (request.handler == &handler) request.handler = nullptr;
  }
}

void RedisLink::input_over_budget() {
  close_connection(Outcome::link_lost, "an answer from Redis was larger than broker.max_reply_bytes");
}

void RedisLink::reset(std::string_view why) {
  if (context_ != nullptr && !closing_) reset_by_owner_ = true;
  close_connection(Outcome::link_lost, why);
}

// From a timer or a reply handler, never from hiredis's connect callback
// (hiredis still uses the context after it). Inside a reply handler hiredis
// frees the context once the handler returns.
void RedisLink::close_connection(Outcome outcome, std::string_view why) {
  if (context_ == nullptr || closing_) return;
  closing_ = true;
  closing_outcome_ = outcome;
  last_error_ = why;
  redisAsyncFree(context_);
}

// hiredis has answered every pending request (with no reply) and is about
// to close the socket.
void RedisLink::context_released() {
  context_ = nullptr;
  closing_ = false;
  closing_outcome_ = Outcome::link_lost;
  head_ = 0;
  if (destroying_) return;
  if (budget_.exceeded) {
    answer_too_large_ = true;
    last_error_ = "an answer from Redis was larger than broker.max_reply_bytes";
  }
  const bool was_up = was_up_;
  was_up_ = false;
  back_off();
  if (was_up && listener_ != nullptr) listener_->link_down(last_error_);
}

void RedisLink::back_off() {
  state_ = LinkState::down;
  ++failures_total_;
  retry_at_ = Clock::now() + backoff_.next();
}

void RedisLink::watch() {
  const Clock::time_point now = loop_.now();
  switch (state_) {
    case LinkState::connecting:
      if (now >= connect_deadline_) {
        close_connection(Outcome::timed_out, "no connection and PONG within broker.connect_timeout_ms");
      }
      break;
    case LinkState::up:
      if (pending_count_ > 0 && now >= ring_[head_].deadline) {
        close_connection(Outcome::timed_out, "Redis did not answer within broker.request_timeout_ms");
      } else if (pending_count_ == 0 && !closing_ && now - quiet_since_ >= limits_.request_timeout) {
        write_ping(scratch_);
        if (!enqueue(scratch_, *this, kQuietPing, now + limits_.request_timeout)) {
          close_connection(Outcome::link_lost, "cannot send PING");
        }
        quiet_since_ = now;
      }
      break;
    case LinkState::down:
      if (now >= retry_at_) connect();
      break;
  }
}

}  // namespace sluice::broker
