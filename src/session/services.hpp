// Owns: LoopServices, what one loop offers the sessions it owns: the
// config snapshot the loop holds (and the limits each layer takes from it), the pool, the loop, its
// hub, its counters, the loop's owner, the application's hooks (and the
// door to its authorizer), and the helpers that serve many sessions at
// once (the SSE heartbeat, the held publishers, the hub's answers). The worker builds one and hands it to
// every session; a session reaches nothing else of the worker.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "buf/block_share.hpp"
#include "buf/pool.hpp"
#include "conn/connection.hpp"
#include "hub/hub.hpp"
#include "io/loop.hpp"
#include "log/logger.hpp"
#include "metrics/loop_metrics.hpp"
#include "proto/http1.hpp"
#include "session/app_hooks.hpp"
#include "session/auth_gate.hpp"
#include "session/broker_publishes.hpp"
#include "session/broker_replays.hpp"
#include "session/connection_state.hpp"
#include "session/counters.hpp"
#include "session/held_publishers.hpp"
#include "session/hub_answers.hpp"
#include "session/latest_window.hpp"
#include "session/ops_pages.hpp"
#include "session/pending_auth.hpp"
#include "session/sse_heartbeat.hpp"
#include "session/ws_stream.hpp"
#include "sluice/config.hpp"
#include "transport/h2_types.hpp"

namespace sluice::session {

class Session;

// The loop that owns the sessions (the server's worker).
class SessionOwner {
 public:
  // `session` closed; it is destroyed at the end of the tick, once no
  // ready event can still name it.
  virtual void retire(Session& session) = 0;

 protected:
  ~SessionOwner() = default;
};

// A WebSocket endpoint beyond sluiced's own, registered by whoever builds
// the server (the tests' echo endpoint is one).
struct WsRoute {
  std::string path;
  std::function<std::unique_ptr<WsStream>(const WsSetup&)> make;
};

// The loop's owner and what it shares with the server's other loops; all of
// it must outlive the services.
struct LoopParts {
  buf::Pool& pool;
  io::Loop& loop;
  hub::Hub& hub;
  LoopCounters& counters;
  metrics::LoopMetrics& metrics;  // this loop's cells, summed at scrape
  const OpsPages& ops;            // what the operator routes show
  log::Logger* logger;            // null: nothing is logged
  SessionOwner& owner;
  FramePoster& poster;  // ConnectionRefs hand this loop frames through it
  const AppHooks& hooks;
  const std::vector<WsRoute>& ws_routes;  // may grow until the loops run
  BrokerPublishes* broker_publishes = nullptr;  // with a broker: where this loop's publishes go
  BrokerReplays* broker_replays = nullptr;      // with a broker: where resuming clients' replays come from
  unsigned index = 0;                           // the loop's number among the server's loops
  buf::MemoryCap* memory_cap = nullptr;         // limits.server_bytes, across every loop; null: none
  buf::BlockShare* h2_bodies = nullptr;         // h2.body_blocks, across every loop; null: the pool's own bound only
};

class LoopServices {
 public:
  // `config`: the settings at start, one snapshot every loop shares.
  LoopServices(const LoopParts& parts, std::shared_ptr<const server::Config> config);
  ~LoopServices();
  LoopServices(const LoopServices&) = delete;
  LoopServices& operator=(const LoopServices&) = delete;

  // On the loop's thread, as it starts: takes what the application's hooks,
  // installed since the server was built, decide (the default Host list).
  void start();

  // The snapshot this loop holds, shared with the other loops and never
  // changed: a reload hands the loop the next one, which it takes on its
  // own thread (reconfigure), between two events, so no session sees a
  // value change mid-read. A reference to it is good until the loop
  // returns to its events; keep a value, never the reference.
  [[nodiscard]] const server::Config& config() const { return *config_; }
  // On the loop's thread: takes `next` (the config in force with a
  // reload's live settings, live_settings.hpp) in place of the snapshot it
  // held, and derives again every limit cached from it. What is under way keeps what it started with (a connection's
  // budgets, a parser's limits); what starts from now on takes the new
  // values; the SSE heartbeat is re-armed at the new period.
  void reconfigure(std::shared_ptr<const server::Config> next);
  [[nodiscard]] const proto::http1::Limits& http_limits() const { return http_limits_; }
  [[nodiscard]] const conn::ConnectionLimits& connection_limits() const { return connection_limits_; }
  [[nodiscard]] const transport::H2Limits& h2_limits() const { return h2_limits_; }
  [[nodiscard]] buf::Pool& pool() { return parts_.pool; }
  [[nodiscard]] buf::BlockShare* h2_bodies() { return parts_.h2_bodies; }
  [[nodiscard]] io::Loop& loop() { return parts_.loop; }
  [[nodiscard]] hub::Hub& hub() { return parts_.hub; }
  [[nodiscard]] LoopCounters& counters() { return parts_.counters; }
  [[nodiscard]] metrics::LoopMetrics& metrics() { return parts_.metrics; }
  [[nodiscard]] const OpsPages& ops() const { return parts_.ops; }
  [[nodiscard]] log::Logger* logger() const { return parts_.logger; }
  // A line per request is written (log.access): the client's address is needed.
  [[nodiscard]] bool logs_access() const { return parts_.logger != nullptr && parts_.logger->access(); }
  [[nodiscard]] SessionOwner& owner() { return parts_.owner; }
  [[nodiscard]] FramePoster& poster() { return parts_.poster; }
  [[nodiscard]] const AppHooks& hooks() const { return parts_.hooks; }
  [[nodiscard]] AuthGate& auth_gate() { return auth_gate_; }
  // Where decisions given on other threads wait for this loop
  // (pending_auth.hpp); the loop drains it with its other inboxes.
  [[nodiscard]] const std::shared_ptr<server::detail::DecisionMailbox>& decision_mailbox() const {
    return decision_mailbox_;
  }
  [[nodiscard]] SseHeartbeat& heartbeat() { return heartbeat_; }
  [[nodiscard]] HeldPublishers& held_publishers() { return held_publishers_; }
  [[nodiscard]] LatestWindow& latest_window() { return latest_window_; }
  // With a broker (broker.url), every publish goes to Redis through this
  // and is answered from Redis's answer; null without one.
  [[nodiscard]] BrokerPublishes* broker_publishes() { return parts_.broker_publishes; }
  // With a broker: a client resuming from an id older than this node keeps
  // has what it missed fetched from Redis through this; null without one.
  [[nodiscard]] BrokerReplays* broker_replays() { return parts_.broker_replays; }
  // What a client is told when the hub refuses it.
  [[nodiscard]] HubAnswer answer(hub::HubStatus status) const { return answers_(status); }
  // The WebSocket handshake's options, as views of the config's lists.
  [[nodiscard]] std::span<const std::string_view> subprotocols() const { return subprotocols_; }
  [[nodiscard]] std::span<const std::string_view> allowed_origins() const { return allowed_origins_; }
  // The Host names requests may carry (host_check.hpp); empty: any.
  [[nodiscard]] std::span<const std::string_view> allowed_hosts() const { return allowed_host_views_; }
  // The registered WebSocket endpoint at `path`, or null.
  [[nodiscard]] const WsRoute* ws_route(std::string_view path) const;

 private:
  void derive_limits();

  LoopParts parts_;
  std::shared_ptr<const server::Config> config_;
  proto::http1::Limits http_limits_;
  conn::ConnectionLimits connection_limits_;
  transport::H2Limits h2_limits_;
  std::vector<std::string_view> subprotocols_;
  std::vector<std::string_view> allowed_origins_;
  AuthGate auth_gate_;
  std::shared_ptr<server::detail::DecisionMailbox> decision_mailbox_;
  bool guarded_ = false;  // an authorizer was installed when the loop started
  std::vector<std::string> allowed_hosts_;
  std::vector<std::string_view> allowed_host_views_;
  SseHeartbeat heartbeat_;
  HeldPublishers held_publishers_;
  HubAnswers answers_;
  LatestWindow latest_window_;
};

}  // namespace sluice::session
