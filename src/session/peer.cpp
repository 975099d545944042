#include "session/peer.hpp"

#include "session/services.hpp"

namespace sluice::session {

Peer::Peer(LoopServices& services, std::shared_ptr<ConnectionState> state, std::string address)
    : services_(services),
      state_(std::move(state)),
      address_(std::move(address)),
      topic_allowance_{services.config().hub.max_created_per_connection} {}

using server::detail::AuthWaitRoom;

Peer::~Peer() {
  state_->closed.store(true, std::memory_order_release);
  withdraw();
  services_.loop().forget(this);
}

AuthOutcome Peer::authorize(server::Action action, std::string_view topic, const proto::http1::Request& request) {
  AuthOutcome outcome = consult([&](AuthWaitRoom* room) {
    return services_.auth_gate().check(action, topic, request, address_, state_->user, room);
  });
  // Each request presents its credentials again: a stream it opens lives
  // by this request's.
  if (action == server::Action::connect && !outcome.is_pending()) expire_at(outcome);
  return outcome;
}

AuthOutcome Peer::authorize(server::Action action, std::string_view topic) {
  return consult([&](AuthWaitRoom* room) {
    return services_.auth_gate().check(action, topic, upgrade_request_.view(), address_, state_->user, {}, room);
  });
}

// A refresh and the checks it makes again answer at once: the stream's
// credentials must not be in doubt while it goes on delivering.
AuthOutcome Peer::refresh(std::string_view token) {
  AuthOutcome outcome = consult([&](AuthWaitRoom*) {
    return services_.auth_gate().check(server::Action::refresh, {}, upgrade_request_.view(), address_, state_->user,
                                       {.token = token});
  });
  if (outcome.allowed()) expire_at(outcome);
  return outcome;
}

AuthOutcome Peer::recheck(std::string_view topic) {
  return consult([&](AuthWaitRoom*) {
    return services_.auth_gate().check(server::Action::subscribe, topic, upgrade_request_.view(), address_,
                                       state_->user, {.held = true});
  });
}

void Peer::begin_asking(AuthWaiter& waiter) {
  waiter_ = &waiter;
  replay_at_ = 0;
}

void Peer::end_asking() {
  waiter_ = nullptr;
  answers_.clear();  // keeps its capacity: a round costs no allocation after the first
  replay_at_ = 0;
}

template <typename Ask>
AuthOutcome Peer::consult(Ask ask) {
  if (waiter_ != nullptr && replay_at_ < answers_.size()) return answers_[replay_at_++];
  AuthOutcome outcome = ask(waiter_ != nullptr && question_ == nullptr ? static_cast<AuthWaitRoom*>(this) : nullptr);
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

server::AuthReply Peer::defer() {
  server::detail::DecisionSink& sink = *this;
  if (question_ == nullptr) question_ = std::make_shared<server::detail::PendingAuth>(sink);
  return server::AuthReply(question_);
}

void Peer::decided(const server::AuthDecision& decision) {
  question_.reset();
  answers_.push_back(services_.auth_gate().judge(decision));
  unheard_ = true;
  services_.loop().defer(this);
}

void Peer::run_deferred() {
  if (!unheard_) return;
  unheard_ = false;
  if (waiter_ != nullptr) waiter_->auth_answered();
}

void Peer::sweep(io::Loop::Clock::time_point now) {
  if (question_ == nullptr || now - asked_at_ < services_.auth_gate().wait_bound()) return;
  withdraw();
  answers_.push_back(services_.auth_gate().judge(
      server::AuthDecision::deny(503, "no authorization decision within auth.callback_timeout_ms", 1)));
  unheard_ = true;
  services_.loop().defer(this);
}

void Peer::withdraw() {
  if (question_ == nullptr) return;
  const std::shared_ptr<server::detail::PendingAuth> question = std::move(question_);
  question_.reset();
  question->withdraw();
}

// The authorizer speaks wall-clock time (a token's exp); the deadline is
// kept on the loop's steady clock, which a clock step cannot move.
void Peer::expire_at(const AuthOutcome& outcome) {
  valid_until_.reset();
  if (!outcome.allowed() || !outcome.expires()) return;
  const auto left = *outcome.expires() - std::chrono::system_clock::now();
  valid_until_ = io::Loop::Clock::now() + std::chrono::duration_cast<io::Loop::Clock::duration>(left);
}

bool Peer::opened(const proto::http1::Request& request) {
  if (services_.auth_gate().installed()) upgrade_request_.keep(request);
  opened_ = true;
  const server::OpenHandler& on_open = services_.hooks().on_open;
  if (!on_open) return true;
  // The application's code runs on the loop that serves every other
  // connection: what it throws stops here.
  try {
    on_open(server::ConnectionRef(state_), request.path);
  } catch (...) {
    return false;
  }
  return true;
}

void Peer::closed() {
  state_->closed.store(true, std::memory_order_release);
  withdraw();
  waiter_ = nullptr;
  unheard_ = false;
  if (!opened_) return;
  opened_ = false;
  const server::CloseHandler& on_close = services_.hooks().on_close;
  if (!on_close) return;
  try {
    on_close(server::ConnectionRef(state_));
  } catch (...) {  // see peer.hpp
  }
}

}  // namespace sluice::session
