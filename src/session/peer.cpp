#include "session/peer.hpp"

#include "session/services.hpp"

namespace sluice::session {

Peer::Peer(LoopServices& services, std::shared_ptr<ConnectionState> state, std::string address)
    : services_(services),
      state_(std::move(state)),
      address_(std::move(address)),
      topic_allowance_{services.config().hub.max_created_per_connection} {}

Peer::~Peer() { state_->closed.store(true, std::memory_order_release); }

AuthOutcome Peer::authorize(server::Action action, std::string_view topic, const proto::http1::Request& request) {
  return services_.auth_gate().check(action, topic, request, address_, state_->user);
}

AuthOutcome Peer::authorize(server::Action action, std::string_view topic) {
  return services_.auth_gate().check(action, topic, upgrade_request_.view(), address_, state_->user);
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
