#include "session/services.hpp"

#include "session/config_limits.hpp"

namespace sluice::session {

LoopServices::LoopServices(const LoopParts& parts)
    : parts_(parts),
      http_limits_(session::http_limits(parts.config.http)),
      connection_limits_(session::connection_limits(parts.config.connection)),
      h2_limits_(session::h2_limits(parts.config)),
      subprotocols_(parts.config.ws.subprotocols.begin(), parts.config.ws.subprotocols.end()),
      allowed_origins_(parts.config.ws.allowed_origins.begin(), parts.config.ws.allowed_origins.end()),
      auth_gate_(parts.hooks.authorize, parts.counters),
      heartbeat_(parts.loop, parts.pool, std::chrono::milliseconds(parts.config.heartbeat_ms)),
      answers_(parts.config.hub.max_topic_name),
      latest_window_(parts.config.policy.latest_window_frames, parts.pool, parts.loop, parts.counters) {
  connection_limits_.memory_cap = parts.memory_cap;
}

const WsRoute* LoopServices::ws_route(std::string_view path) const {
  for (const WsRoute& route : parts_.ws_routes) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

}  // namespace sluice::session
