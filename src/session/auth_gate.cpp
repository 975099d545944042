#include "session/auth_gate.hpp"

#include <exception>

namespace sluice::session {

AuthOutcome::AuthOutcome(int status, std::string_view reason, std::uint32_t retry_after,
                         std::string_view challenge)
    : http_status_(status), retry_after_(retry_after) {
  if (status == 401) challenge_ = challenge.empty() ? std::string_view("Bearer") : challenge;
  text_ = std::to_string(status);
  text_.push_back(' ');
  reason_at_ = text_.size();
  text_.append(reason);
}

AuthOutcome AuthOutcome::of(const server::AuthDecision& decision) {
  if (decision.allowed()) {
    AuthOutcome allowed;
    allowed.expires_ = decision.expires();
    return allowed;
  }
  return AuthOutcome(decision.status(), decision.reason(), decision.retry_after(), decision.challenge());
}

AuthOutcome AuthOutcome::failed() { return AuthOutcome(500, "authorization failed", 0, {}); }

AuthOutcome AuthOutcome::pending() {
  AuthOutcome waiting(503, "authorization pending", 1, {});
  waiting.pending_ = true;
  return waiting;
}

proto::ws::CloseCode AuthOutcome::close_code() const {
  // 4000-4999 is the range RFC 6455 leaves to applications: 4000 + the HTTP
  // status lets a browser, which cannot read a refused upgrade's status,
  // tell "who are you?" (4401) from "not allowed" (4403) and "too many"
  // (4429). 1013 is "try again later" (registered after RFC 6455).
  switch (http_status_) {
    case 401:
    case 403:
    case 429: return static_cast<proto::ws::CloseCode>(4000 + http_status_);
    case 503: return static_cast<proto::ws::CloseCode>(1013);
    default: return proto::ws::CloseCode::internal_error;
  }
}

AuthGate::AuthGate(const server::Authorizer& authorizer, LoopCounters& counters, unsigned loop)
    : authorizer_(authorizer), counters_(counters), loop_(loop) {}

AuthOutcome AuthGate::check(server::Action action, std::string_view topic, const proto::http1::Request& request,
                            std::string_view peer, std::atomic<server::UserData>& user,
                            server::detail::AuthWaitRoom* room) {
  if (!authorizer_) return AuthOutcome::allow();
  // The vector keeps its capacity: after the first requests, no allocation.
  fields_.clear();
  for (const proto::http1::Header& h : request.headers) fields_.push_back({h.name, h.value});
  return check(action, topic, RequestView{request.method_text, request.path, request.query, server::Headers(fields_)},
               peer, user, {}, room);
}

AuthOutcome AuthGate::check(server::Action action, std::string_view topic, const RequestView& request,
                            std::string_view peer, std::atomic<server::UserData>& user, StreamAsk ask,
                            server::detail::AuthWaitRoom* room) {
  if (!authorizer_) return AuthOutcome::allow();
  server::UserData data = user.load();
  const server::UserData before = data;
  AuthOutcome outcome = AuthOutcome::allow();
  // The authorizer is the application's code: whatever it throws stops
  // here, on the loop that serves every other connection too, and the
  // client is refused rather than let through.
  try {
    const server::AuthRequest asked{action, request.method, request.path, request.query, topic, peer,
                                    request.headers, data, ask.token, ask.held, loop_, room};
    const server::AuthDecision decision = authorizer_(asked);
    outcome = decision.is_later() ? AuthOutcome::pending() : AuthOutcome::of(decision);
  } catch (...) {
    outcome = AuthOutcome::failed();
  }
  if (data != before) user.store(std::move(data));
  if (!outcome.allowed() && !outcome.is_pending()) ++counters_.denied;
  return outcome;
}

AuthOutcome AuthGate::judge(const server::AuthDecision& decision) {
  AuthOutcome outcome = AuthOutcome::of(decision);
  if (!outcome.allowed()) ++counters_.denied;
  return outcome;
}

}  // namespace sluice::session
