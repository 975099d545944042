#include "server/callback_authorizer.hpp"

#include <memory>
#include <vector>

#include "auth/callback_client.hpp"
#include "auth/callback_request.hpp"
#include "server/hook_decision.hpp"
#include "server/server_impl.hpp"
#include "server/ws_routes.hpp"

namespace sluice::server {

namespace {

// "IP:PORT" or "[IPv6]:PORT" -> the address alone: the callback judges the
// client, and a port in the question would make every connection's answer
// its own in the cache.
std::string_view address_of(std::string_view peer) {
  peer = peer.substr(0, peer.rfind(':'));
  if (peer.size() >= 2 && peer.front() == '[' && peer.back() == ']') peer = peer.substr(1, peer.size() - 2);
  return peer;
}

class CallbackAuthorizer {
 public:
  CallbackAuthorizer(Authorizer first, std::vector<auth::CallbackClient*> clients)
      : first_(std::move(first)), clients_(std::move(clients)), headers_(clients_.size()) {}

  AuthDecision operator()(const AuthRequest& request) {
    if (first_) {
      AuthDecision decided = first_(request);
      if (!decided.allowed()) return decided;
      if (request.action == Action::connect || request.action == Action::refresh) return decided;
    } else if (request.action == Action::connect || request.action == Action::refresh) {
      return AuthDecision::allow();  // the callback judges subscriptions and publishes
    }
    // A topic the stream already follows, asked again after a /ws refresh:
    // the callback was asked when it subscribed, with the same cookies and
    // headers (those of the upgrade), so its answer has not changed.
    if (request.held) return AuthDecision::allow();
    if (!request.can_wait()) return AuthDecision::deny(503, "the authorization callback cannot be waited for here", 1);
    return ask(request);
  }

 private:
  AuthDecision ask(const AuthRequest& request) {
    auth::CallbackClient& client = *clients_[request.loop];
    std::vector<proto::http1::Header>& headers = headers_[request.loop];
    headers.clear();
    for (const HeaderField& field : request.headers.fields()) headers.push_back({field.name, field.value});
    const auth::CallbackQuestion question{
        request.action == Action::publish ? auth::Action::publish : auth::Action::subscribe, request.topic, headers,
        address_of(request.peer)};
    AuthReply reply = request.answer_later();
    const auth::CallbackClient::Asked asked =
        client.ask(question, [reply](const auth::Decision& decision) { (void)reply(to_hook(decision)); });
    if (asked.now) return to_hook(*asked.now);  // the handle taken is let go unused
    // The connection closed first: its question's socket is closed and its
    // place among the questions in flight given back.
    reply.on_withdrawn([&client, ticket = asked.ticket] { client.cancel(ticket); });
    return AuthDecision::later();
  }

  Authorizer first_;
  std::vector<auth::CallbackClient*> clients_;  // by loop; each kept by its loop's worker
  std::vector<std::vector<proto::http1::Header>> headers_;  // by loop: each loop's own scratch
};

auth::CallbackConfig client_config(const AuthConfig& auth) {
  auth::CallbackConfig out;
  out.forward_headers = auth.callback_headers;
  out.timeout = std::chrono::milliseconds(auth.callback_timeout_ms);
  out.cache_ttl = std::chrono::milliseconds(auth.callback_cache_ms);
  out.cache_entries = static_cast<std::size_t>(auth.callback_cache_entries);
  out.max_inflight = static_cast<std::size_t>(auth.callback_max_inflight);
  out.max_reply_head = static_cast<std::size_t>(auth.callback_max_reply_bytes);
  return out;
}

}  // namespace

std::optional<std::string> make_callback_authorizer(const Config& config, Server& server, Authorizer first,
                                                    Authorizer& out) {
  const AuthConfig& auth = config.auth;
  if (auth.callback_url.empty()) return "config key 'auth.callback_url' must be set with auth.mode=callback";
  if (std::string error = auth::check_forwarded_headers(auth.callback_headers); !error.empty()) return error;
  auth::CallbackTarget target;
  if (auto error = auth::resolve_callback_url(auth.callback_url, target)) return error;
  std::vector<auth::CallbackClient*> clients;
  for (const std::unique_ptr<Worker>& worker : impl_of(server).workers) {
    auto client = std::make_shared<auth::CallbackClient>(worker->loop(), target, client_config(auth));
    clients.push_back(client.get());
    worker->keep(std::move(client));
  }
  auto authorizer = std::make_shared<CallbackAuthorizer>(std::move(first), std::move(clients));
  out = [authorizer](const AuthRequest& request) { return (*authorizer)(request); };
  return std::nullopt;
}

}  // namespace sluice::server
