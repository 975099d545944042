#include "session/services.hpp"

namespace sluice::session {

LoopServices::LoopServices(const server::Config& config, buf::Pool& pool, io::Loop& loop, hub::Hub& hub,
                           LoopCounters& counters, SessionOwner& owner, const std::vector<WsRoute>& ws_routes)
    : config_(config),
      pool_(pool),
      loop_(loop),
      hub_(hub),
      counters_(counters),
      owner_(owner),
      ws_routes_(ws_routes),
      subprotocols_(config.ws.subprotocols.begin(), config.ws.subprotocols.end()),
      allowed_origins_(config.ws.allowed_origins.begin(), config.ws.allowed_origins.end()),
      heartbeat_(loop, pool, std::chrono::milliseconds(config.heartbeat_ms)),
      answers_(config.hub.max_topic_name) {}

const WsRoute* LoopServices::ws_route(std::string_view path) const {
  for (const WsRoute& route : ws_routes_) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

}  // namespace sluice::session
