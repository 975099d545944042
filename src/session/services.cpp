#include "session/services.hpp"

#include <utility>

#include "io/socket.hpp"
#include "session/config_limits.hpp"
#include "session/host_check.hpp"
#include "session/pending_auth.hpp"

namespace sluice::session {

LoopServices::LoopServices(const LoopParts& parts, std::shared_ptr<const server::Config> config)
    : parts_(parts),
      config_(std::move(config)),
      auth_gate_(parts.hooks.authorize, parts.counters, parts.index),
      decision_mailbox_(std::make_shared<server::detail::DecisionMailbox>([&loop = parts.loop] { loop.wake(); })),
      heartbeat_(parts.loop, parts.pool, std::chrono::milliseconds(config_->heartbeat_ms)),
      answers_(config_->hub.max_topic_name),
      latest_window_(config_->policy, parts.pool, parts.loop, parts.counters, parts.metrics) {
  auth_gate_.set_wait_bound(std::chrono::milliseconds(config_->auth.callback_timeout_ms));
  derive_limits();
}

// Whether an authorizer guards the server decides the default Host list.
// The application installs it after the server is built (sluiced does, from
// auth.mode), so the answer is taken as the loop starts; a reload keeps it,
// so that a reload never widens the list the server started with.
void LoopServices::start() {
  guarded_ = auth_gate_.installed();
  derive_limits();
}

// A decision given later for a connection of this loop is refused from now
// on: nothing would take it.
LoopServices::~LoopServices() { decision_mailbox_->close(); }

// The snapshot held before is let go here; the last loop to let it go
// frees it (a reload's cost, never an event's).
void LoopServices::reconfigure(std::shared_ptr<const server::Config> next) {
  const std::int64_t beat = config_->heartbeat_ms;
  config_ = std::move(next);
  derive_limits();
  latest_window_.configure(config_->policy);
  if (config_->heartbeat_ms != beat) heartbeat_.set_period(std::chrono::milliseconds(config_->heartbeat_ms));
}

void LoopServices::derive_limits() {
  const server::Config& config = *config_;
  http_limits_ = session::http_limits(config.http);
  connection_limits_ = session::connection_limits(config.connection);
  connection_limits_.memory_cap = parts_.memory_cap;
  h2_limits_ = session::h2_limits(config);
  subprotocols_.assign(config.ws.subprotocols.begin(), config.ws.subprotocols.end());
  allowed_origins_.assign(config.ws.allowed_origins.begin(), config.ws.allowed_origins.end());
  // The hosts of the public and admin listeners decide the default list.
  std::vector<std::string> listen_hosts;
  for (const std::string* listen : {&config.listen, &config.ops.admin_listen}) {
    if (io::Endpoint endpoint; !listen->empty() && io::parse_endpoint(*listen, endpoint)) {
      listen_hosts.push_back(endpoint.host);
    }
  }
  const std::vector<std::string_view> listen_views(listen_hosts.begin(), listen_hosts.end());
  allowed_hosts_ = hosts_in_force(config.allowed_hosts, listen_views, guarded_);
  allowed_host_views_.assign(allowed_hosts_.begin(), allowed_hosts_.end());
}

const WsRoute* LoopServices::ws_route(std::string_view path) const {
  for (const WsRoute& route : parts_.ws_routes) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

}  // namespace sluice::session
