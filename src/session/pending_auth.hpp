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
// touches freed memory. Everything happens on the loop's thread: the
// handle refuses a call from any other.
#pragma once

#include <functional>
#include <optional>
#include <thread>

#include "sluice/authorization.hpp"

namespace sluice::server::detail {

// Where a decision given later goes (the waiting connection).
class DecisionSink {
 public:
  virtual void decided(const AuthDecision& decision) = 0;

 protected:
  ~DecisionSink() = default;
};

class PendingAuth {
 public:
  explicit PendingAuth(DecisionSink& sink) : sink_(&sink), loop_thread_(std::this_thread::get_id()) {}

  // AuthReply::operator(): true when taken.
  bool give(const AuthDecision& decision);
  [[nodiscard]] bool withdrawn() const { return withdrawn_; }
  void on_withdrawn(std::function<void()> fn) { on_withdrawn_ = std::move(fn); }

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
  DecisionSink* sink_;  // null once decided or withdrawn
  std::thread::id loop_thread_;
  bool withdrawn_ = false;
  bool in_call_ = true;
  std::optional<AuthDecision> early_;
  std::function<void()> on_withdrawn_;
};

class AuthWaitRoom {
 public:
  // A handle for a question about to be answered later.
  virtual AuthReply defer() = 0;

 protected:
  ~AuthWaitRoom() = default;
};

}  // namespace sluice::server::detail
