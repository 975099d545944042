#include "session/peer.hpp"

#include "session/services.hpp"

namespace sluice::session {

Peer::Peer(LoopServices& services, std::shared_ptr<ConnectionState> state, std::string address,
           hub::TopicAllowance* allowance, std::uint64_t address_tag)
    : services_(services),
      state_(std::move(state)),
      address_(std::move(address)),
      own_allowance_{services.config().hub.max_created_per_connection, address_tag},
      topic_allowance_(allowance != nullptr ? *allowance : own_allowance_) {}

using server::detail::AuthWaitRoom;

// The connection's own round withdraws its question as it goes.
Peer::~Peer() { state_->closed.store(true, std::memory_order_release); }

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
    return services_.auth_gate().check(action, topic, upgrade_view(), address_, state_->user, {}, room);
  });
}

// A refresh and the checks it makes again answer at once: the stream's
// credentials must not be in doubt while it goes on delivering.
AuthOutcome Peer::refresh(std::string_view token) {
  AuthOutcome outcome = consult([&](AuthWaitRoom*) {
    return services_.auth_gate().check(server::Action::refresh, {}, upgrade_view(), address_, state_->user,
                                       {.token = token});
  });
  if (outcome.allowed()) expire_at(outcome);
  return outcome;
}

AuthOutcome Peer::recheck(std::string_view topic) {
  return consult([&](AuthWaitRoom*) {
    return services_.auth_gate().check(server::Action::subscribe, topic, upgrade_view(), address_,
                                       state_->user, {.held = true});
  });
}

void Peer::begin_asking(AuthRound& round, AuthWaiter& waiter) {
  asking_ = &round;
  round.begin(waiter);
}

void Peer::end_asking() {
  if (asking_ != nullptr) asking_->end();
  asking_ = nullptr;
}

bool Peer::finish_asking() {
  if (asking_ == nullptr || !asking_->pending()) {
    end_asking();
    return false;
  }
  asking_ = nullptr;
  return true;
}

template <typename Ask>
AuthOutcome Peer::consult(Ask ask) {
  if (asking_ != nullptr) {
    if (std::optional<AuthOutcome> recorded = asking_->recorded()) return *std::move(recorded);
    return asking_->settle(ask(asking_->room()));
  }
  AuthOutcome outcome = ask(nullptr);
  if (!outcome.is_pending()) return outcome;
  // AuthDecision::later() with nowhere to wait: nothing would ever answer.
  ++services_.counters().denied;
  return AuthOutcome::failed();
}

// The authorizer speaks wall-clock time (a token's exp); the deadline is
// kept on the loop's steady clock, which a clock step cannot move.
void Peer::expire_at(const AuthOutcome& outcome) {
  valid_until_.reset();
  if (!outcome.allowed() || !outcome.expires()) return;
  const auto left = *outcome.expires() - std::chrono::system_clock::now();
  valid_until_ = io::Loop::Clock::now() + std::chrono::duration_cast<io::Loop::Clock::duration>(left);
}

buf::ChargeStatus Peer::keep_request(const proto::http1::Request& request, buf::MemoryAccount* account) {
  if (!services_.auth_gate().installed()) return buf::ChargeStatus::ok;
  auto kept = std::make_unique<KeptRequest>();
  const buf::ChargeStatus status = kept->keep(request, account);
  if (status == buf::ChargeStatus::ok) upgrade_request_ = std::move(kept);
  return status;
}

void Peer::keep_request(KeptRequest&& kept) {
  upgrade_request_ = kept.empty() ? nullptr : std::make_unique<KeptRequest>(std::move(kept));
}

AuthRound& Peer::own_round() {
  if (!round_) round_ = std::make_unique<AuthRound>(services_);
  return *round_;
}

void Peer::let_go_of_own_round() {
  if (!round_ || round_->pending()) return;
  if (asking_ == round_.get()) end_asking();
  round_.reset();
}

bool Peer::opened(const proto::http1::Request& request) {
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

void Peer::take_credentials(const Peer& connection) {
  valid_until_ = connection.valid_until_;
  state_->user.store(connection.state_->user.load());
}

void Peer::closed() {
  state_->closed.store(true, std::memory_order_release);
  if (round_) round_->close();
  asking_ = nullptr;
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
