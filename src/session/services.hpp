// Owns: LoopServices, what one loop offers the sessions it owns: the
// config, the pool, the loop, its hub, its counters, the loop's owner, and
// the helpers that serve many sessions at once (the SSE heartbeat, the held
// publishers). The worker builds one and hands it to every session; a
// session reaches nothing else of the worker.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "buf/pool.hpp"
#include "hub/hub.hpp"
#include "io/loop.hpp"
#include "session/counters.hpp"
#include "session/held_publishers.hpp"
#include "session/hub_answers.hpp"
#include "session/sse_heartbeat.hpp"
#include "session/ws_stream.hpp"
#include "sluice/config.hpp"

namespace sluice::session {

class Session;

// The loop that owns the sessions (the server's worker).
class SessionOwner {
 public:
  // `session` closed; it is destroyed at the end of the tick, once no
  // ready event can still name it.
  virtual void retire(Session& session) = 0;
  // `session` became a WebSocket on `path` (the application's on_open).
  virtual void websocket_opened(Session& session, std::string_view path) = 0;

 protected:
  ~SessionOwner() = default;
};

// A WebSocket endpoint beyond sluiced's own, registered by whoever builds
// the server (the tests' echo endpoint is one).
struct WsRoute {
  std::string path;
  std::function<std::unique_ptr<WsStream>(const WsSetup&)> make;
};

class LoopServices {
 public:
  // Everything passed must outlive the services.
  LoopServices(const server::Config& config, buf::Pool& pool, io::Loop& loop, hub::Hub& hub, LoopCounters& counters,
               SessionOwner& owner, const std::vector<WsRoute>& ws_routes);
  LoopServices(const LoopServices&) = delete;
  LoopServices& operator=(const LoopServices&) = delete;

  [[nodiscard]] const server::Config& config() const { return config_; }
  [[nodiscard]] buf::Pool& pool() { return pool_; }
  [[nodiscard]] io::Loop& loop() { return loop_; }
  [[nodiscard]] hub::Hub& hub() { return hub_; }
  [[nodiscard]] LoopCounters& counters() { return counters_; }
  [[nodiscard]] SessionOwner& owner() { return owner_; }
  [[nodiscard]] SseHeartbeat& heartbeat() { return heartbeat_; }
  [[nodiscard]] HeldPublishers& held_publishers() { return held_publishers_; }
  // What a client is told when the hub refuses it.
  [[nodiscard]] HubAnswer answer(hub::HubStatus status) const { return answers_(status); }
  // The WebSocket handshake's options, as views of the config's lists.
  [[nodiscard]] std::span<const std::string_view> subprotocols() const { return subprotocols_; }
  [[nodiscard]] std::span<const std::string_view> allowed_origins() const { return allowed_origins_; }
  // The registered WebSocket endpoint at `path`, or null.
  [[nodiscard]] const WsRoute* ws_route(std::string_view path) const;

 private:
  const server::Config& config_;
  buf::Pool& pool_;
  io::Loop& loop_;
  hub::Hub& hub_;
  LoopCounters& counters_;
  SessionOwner& owner_;
  const std::vector<WsRoute>& ws_routes_;  // may grow until the loops run
  std::vector<std::string_view> subprotocols_;
  std::vector<std::string_view> allowed_origins_;
  SseHeartbeat heartbeat_;
  HeldPublishers held_publishers_;
  HubAnswers answers_;
};

}  // namespace sluice::session
