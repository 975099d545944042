// Owns: AuthRound, one asking round: the request or message a phase is
// handling, the answers its checks got, in order, and the one question of
// it that waits for a decision given later.
//
// A phase that can wait (the HTTP/1.1 request phase, a WebSocket stream,
// an HTTP/2 stream whose request is being routed) has a round of its own,
// so that a question pending for one of them holds up only that one: the
// other streams of an HTTP/2 connection go on being served and decoded.
// When the pending decision comes, the round tells its waiter on a later
// turn of the loop (never inside the authorizer's call), and the waiter
// handles the same request or message again from the start: each check it
// makes again is given its recorded answer, so the authorizer is asked each
// question once. The wait is bounded by auth.callback_timeout_ms (503 past
// it, checked by the owner's sweep); a round closed or destroyed first
// withdraws its question.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "io/loop.hpp"
#include "session/auth_gate.hpp"
#include "session/pending_auth.hpp"

namespace sluice::session {

class LoopServices;

// A phase that can wait for a decision given later.
class AuthWaiter {
 public:
  // The pending decision has come: handle the request or message that was
  // waiting again, from the start (its checks get their recorded answers).
  virtual void auth_answered() = 0;

 protected:
  ~AuthWaiter() = default;
};

class AuthRound final : private server::detail::AuthWaitRoom,
                        private server::detail::DecisionSink,
                        private io::Deferred {
 public:
  explicit AuthRound(LoopServices& services);
  // A question still pending is withdrawn.
  ~AuthRound();
  AuthRound(const AuthRound&) = delete;
  AuthRound& operator=(const AuthRound&) = delete;

  // `waiter` is about to handle a request or message (again, after
  // auth_answered(): the recorded answers are given back from the first).
  void begin(AuthWaiter& waiter);
  // Handled, nothing pending: the answers are dropped (the vector keeps its
  // capacity, so a round costs no allocation after the first).
  void end();
  // A question waits for its decision, or the decision has come and the
  // waiter has yet to hear of it: the waiter acts on nothing more.
  [[nodiscard]] bool pending() const { return question_ != nullptr || unheard_; }
  // The waiter is gone (its stream or connection closed), or will not
  // wait: the question is withdrawn, the answers dropped, and nobody is
  // told of anything.
  void close();
  // A decision awaited past auth.callback_timeout_ms is given up (503).
  void sweep(io::Loop::Clock::time_point now);

  // One check of the round. `recorded()` is its answer from an earlier
  // pass, if any; otherwise the check is asked with `room()` as where to
  // wait (null once a question of the round waits: one at a time), and its
  // outcome goes through `settle()`, which records it.
  [[nodiscard]] std::optional<AuthOutcome> recorded();
  [[nodiscard]] server::detail::AuthWaitRoom* room();
  [[nodiscard]] AuthOutcome settle(AuthOutcome outcome);

 private:
  server::AuthReply defer() override;
  void decided(const server::AuthDecision& decision) override;
  void run_deferred() override;
  // The waiter hears of the answer recorded last, next turn.
  void tell_later(AuthOutcome outcome);
  void withdraw();

  LoopServices& services_;
  AuthWaiter* waiter_ = nullptr;
  std::vector<AuthOutcome> answers_;
  std::size_t replay_at_ = 0;
  std::shared_ptr<server::detail::PendingAuth> question_;
  io::Loop::Clock::time_point asked_at_;
  bool unheard_ = false;  // a decision came; the waiter hears of it next turn
};

}  // namespace sluice::session
