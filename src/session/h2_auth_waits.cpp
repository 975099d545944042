// HTTP/2 requests whose authorization is decided later (h2_waiting.hpp):
// each new request is routed in an asking round; when one of its checks
// waits, the round and a copy of the request go to the stream's exchange,
// and the request is routed again, from the start, when the decision
// comes. What the stream received meanwhile then goes where the decision
// sent it: a publish's body, a WebSocket's first frames, or given back
// unread with a refusal.
#include "session/connection_state.hpp"
#include "session/h2_connection.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

void H2Connection::on_request(const transport::H2Request& request) {
  served_any_ = true;
  quiet_since_ = session_.loop().now();
  if (!services_.auth_gate().installed()) return serve(request);
  // Made once per connection: rounds that answer at once reuse it.
  if (!routing_) routing_ = std::make_unique<H2Waiting>(services_, *this);
  Peer& peer = session_.peer();
  peer.begin_asking(routing_->round(), *routing_);
  serve(request);
  if (peer.finish_asking()) wait_for_authorization(request);
}

void H2Connection::wait_for_authorization(const transport::H2Request& request) {
  H2Exchange* exchange = open_exchange(request.stream);
  if (exchange == nullptr) return routing_->round().close();  // refused: the question is withdrawn
  routing_->keep(request);
  routing_->user = session_.peer().state()->user.load();
  exchange->waiting = std::move(routing_);
}

void H2Connection::authorization_answered(std::int32_t stream) {
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange == nullptr || !exchange->waiting || !h2_) return;
  H2Waiting& waiting = *exchange->waiting;
  Peer& peer = session_.peer();
  // Routed again under its own credentials (a stream it opens takes them),
  // then the connection's are put back as the latest request left them.
  ConnectionState& connection = *peer.state();
  const server::UserData latest = connection.user.exchange(waiting.user);
  peer.begin_asking(waiting.round(), waiting);
  serve(waiting.request());
  const bool waits_again = peer.finish_asking();
  waiting.user = connection.user.exchange(latest);
  // Another check of the same request waits now.
  if (waits_again) return;
  deliver_held(*exchange);
  if (waiting.client_ended) on_end(stream);
  session_.want_flush();
  end_if_owed_nothing();
}

void H2Connection::deliver_held(H2Exchange& exchange) {
  if (exchange.ws) return feed_websocket(exchange, {});
  if (exchange.posting && !exchange.unread.empty()) {
    // Moved out: on_data gathers the body from it.
    const std::string held = std::move(exchange.unread);
    exchange.unread.clear();
    return on_data(exchange.id, held);
  }
  h2_->consume(exchange.id, exchange.unread.size());
  exchange.unread.clear();
}

}  // namespace sluice::session
