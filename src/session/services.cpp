#include "session/services.hpp"

#include "io/socket.hpp"
#include "session/config_limits.hpp"
#include "session/host_check.hpp"

namespace sluice::session {

LoopServices::LoopServices(const LoopParts& parts)
    : parts_(parts),
      http_limits_(session::http_limits(parts.config.http)),
      connection_limits_(session::connection_limits(parts.config.connection)),
      h2_limits_(session::h2_limits(parts.config)),
      subprotocols_(parts.config.ws.subprotocols.begin(), parts.config.ws.subprotocols.end()),
      allowed_origins_(parts.config.ws.allowed_origins.begin(), parts.config.ws.allowed_origins.end()),
      auth_gate_(parts.hooks.authorize, parts.counters, parts.index),
      heartbeat_(parts.loop, parts.pool, std::chrono::milliseconds(parts.config.heartbeat_ms)),
      answers_(parts.config.hub.max_topic_name),
      latest_window_(parts.config.policy.latest_window_frames, parts.pool, parts.loop, parts.counters) {
  // The hosts of the public and admin listeners decide the default list.
  std::vector<std::string> listen_hosts;
  for (const std::string* listen : {&parts.config.listen, &parts.config.ops.admin_listen}) {
    if (io::Endpoint endpoint; !listen->empty() && io::parse_endpoint(*listen, endpoint)) {
      listen_hosts.push_back(endpoint.host);
    }
  }
  const std::vector<std::string_view> listen_views(listen_hosts.begin(), listen_hosts.end());
  allowed_hosts_ = hosts_in_force(parts.config.allowed_hosts, listen_views, auth_gate_.installed());
  allowed_host_views_.assign(allowed_hosts_.begin(), allowed_hosts_.end());
  auth_gate_.set_wait_bound(std::chrono::milliseconds(parts.config.auth.callback_timeout_ms));
  connection_limits_.memory_cap = parts.memory_cap;
}

const WsRoute* LoopServices::ws_route(std::string_view path) const {
  for (const WsRoute& route : parts_.ws_routes) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

}  // namespace sluice::session
