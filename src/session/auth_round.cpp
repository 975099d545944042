#include "session/auth_round.hpp"

#include "session/services.hpp"

namespace sluice::session {

AuthRound::AuthRound(LoopServices& services) : services_(services) {}

AuthRound::~AuthRound() {
  withdraw();
  services_.loop().forget(this);
}

void AuthRound::begin(AuthWaiter& waiter) {
  waiter_ = &waiter;
  replay_at_ = 0;
}

void AuthRound::end() {
  waiter_ = nullptr;
  answers_.clear();
  replay_at_ = 0;
}

void AuthRound::close() {
  withdraw();
  end();
  unheard_ = false;
}

std::optional<AuthOutcome> AuthRound::recorded() {
  if (waiter_ != nullptr && replay_at_ < answers_.size()) return answers_[replay_at_++];
  return std::nullopt;
}

server::detail::AuthWaitRoom* AuthRound::room() {
  return waiter_ != nullptr && question_ == nullptr ? this : nullptr;
}

AuthOutcome AuthRound::settle(AuthOutcome outcome) {
  if (question_ != nullptr) {
    question_->set_in_call(false);
    if (std::optional<server::AuthDecision> early = question_->take_early(); early && outcome.is_pending()) {
      question_.reset();
      outcome = services_.auth_gate().judge(*early);
    } else if (!outcome.is_pending()) {
      withdraw();  // a handle was taken, yet the decision came now
    } else {
      asked_at_ = services_.loop().now();
      return outcome;
    }
  } else if (outcome.is_pending()) {
    // AuthDecision::later() without a handle: nothing would ever answer.
    ++services_.counters().denied;
    outcome = AuthOutcome::failed();
  }
  if (waiter_ != nullptr) {
    answers_.push_back(outcome);
    replay_at_ = answers_.size();
  }
  return outcome;
}

server::AuthReply AuthRound::defer() {
  server::detail::DecisionSink& sink = *this;
  if (question_ == nullptr) {
    question_ = std::make_shared<server::detail::PendingAuth>(sink, services_.decision_mailbox());
  }
  return server::AuthReply(question_);
}

void AuthRound::decided(const server::AuthDecision& decision) {
  question_.reset();
  tell_later(services_.auth_gate().judge(decision));
}

void AuthRound::sweep(io::Loop::Clock::time_point now) {
  if (question_ == nullptr || now - asked_at_ < services_.auth_gate().wait_bound()) return;
  withdraw();
  tell_later(services_.auth_gate().judge(
      server::AuthDecision::deny(503, "no authorization decision within auth.callback_timeout_ms", 1)));
}

void AuthRound::tell_later(AuthOutcome outcome) {
  answers_.push_back(std::move(outcome));
  unheard_ = true;
  services_.loop().defer(this);
}

// The waiter may end the stream that owns this round while it handles the
// answer: nothing here is touched after the call.
void AuthRound::run_deferred() {
  if (!unheard_) return;
  unheard_ = false;
  if (waiter_ != nullptr) waiter_->auth_answered();
}

void AuthRound::withdraw() {
  if (question_ == nullptr) return;
  const std::shared_ptr<server::detail::PendingAuth> question = std::move(question_);
  question_.reset();
  question->withdraw();
}

}  // namespace sluice::session
