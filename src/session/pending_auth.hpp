// Owns: PendingAuth, one authorization question whose decision comes
// later, shared by the AuthReply copies the authorizer holds and the
// connection that waits (Peer); and AuthWaitRoom, what a connection offers
// an authorizer that answers later.
//
// The connection and the handles may outlive each other either way: the
// connection closes while the authorizer still holds its handle (the
// question is withdrawn: a decision given afterwards reaches nobody), or
// the authorizer drops its handle unused (the connection's bound answers
// 503). Neither side points at the other once it is gone, so neither order
// touches freed memory.
//
// A decision may be given on any thread (an authorizer that asks another
// server from a thread of its own). Given on the loop's thread it is taken
// there and then; given on another, it is kept in the question and the
// question is handed to the loop through its DecisionMailbox, and the loop
// takes it on its own thread when it drains its inboxes, exactly as if it
// had been given there: a question withdrawn meanwhile drops it. So the
// connection, its round and its sink are only ever touched on the loop's
// thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sluice/authorization.hpp"

namespace sluice::server::detail {

// Where a decision given later goes (the waiting connection).
class DecisionSink {
 public:
  virtual void decided(const AuthDecision& decision) = 0;

 protected:
  ~DecisionSink() = default;
};

class DecisionMailbox;

class PendingAuth {
 public:
  explicit PendingAuth(DecisionSink& sink, std::shared_ptr<DecisionMailbox> mailbox = nullptr)
      : sink_(&sink), mailbox_(std::move(mailbox)), loop_thread_(std::this_thread::get_id()) {}

  // AuthReply::operator(), `self` being this question: true when taken (on
  // the loop's thread) or handed to the loop (on another).
  bool give(const AuthDecision& decision, const std::shared_ptr<PendingAuth>& self);
  // On the loop's thread (DecisionMailbox::drain): the decision another
  // thread gave, to the sink, unless the question was withdrawn since.
  void take_posted();
  [[nodiscard]] bool withdrawn() const { return withdrawn_.load(std::memory_order_acquire); }
  void on_withdrawn(std::function<void()> fn) {
    if (std::this_thread::get_id() == loop_thread_) on_withdrawn_ = std::move(fn);
  }

  // The connection stops waiting: runs the authorizer's on_withdrawn (once)
  // unless a decision was given.
  void withdraw();
  // While the authorizer's call is still running, a decision is kept here
  // rather than handed to the sink: the check that made the call uses it
  // as the answer of the moment.
  void set_in_call(bool in_call) { in_call_ = in_call; }
  [[nodiscard]] std::optional<AuthDecision> take_early() {
    std::optional<AuthDecision> early = std::move(early_);
    early_.reset();
    return early;
  }

 private:
  bool take(const AuthDecision& decision);

  DecisionSink* sink_;  // null once decided or withdrawn; the loop's thread only
  std::shared_ptr<DecisionMailbox> mailbox_;  // null: decisions from other threads are not taken
  std::thread::id loop_thread_;
  std::atomic<bool> withdrawn_{false};
  // A decision given on another thread, waiting for the loop; `given_`
  // once any thread has given one.
  std::mutex posted_mutex_;
  std::optional<AuthDecision> posted_;
  bool given_ = false;
  bool in_call_ = true;
  std::optional<AuthDecision> early_;
  std::function<void()> on_withdrawn_;
};

// The loop's inbox for questions decided on other threads. Holds at most
// one entry per question (a question is decided once), so it is bounded by
// the questions waiting on the loop, at most one per connection (one per
// HTTP/2 stream). Shared by the questions, so that one given after the
// loop has gone (its server destroyed) is refused, not lost in freed
// memory.
class DecisionMailbox {
 public:
  // `wake` makes the loop drain() soon; called from any thread.
  explicit DecisionMailbox(std::function<void()> wake) : wake_(std::move(wake)) {}

  // Any thread: false once closed.
  bool post(std::shared_ptr<PendingAuth> question);
  // The loop's thread: hands each posted decision to its connection.
  void drain();
  // The loop's thread, as it goes away: every later post() is refused.
  void close();

 private:
  std::mutex mutex_;
  bool closed_ = false;
  std::vector<std::shared_ptr<PendingAuth>> posted_;
  std::vector<std::shared_ptr<PendingAuth>> draining_;  // the loop's thread only
  std::function<void()> wake_;
};

class AuthWaitRoom {
 public:
  // A handle for a question about to be answered later.
  virtual AuthReply defer() = 0;

 protected:
  ~AuthWaitRoom() = default;
};

}  // namespace sluice::server::detail
