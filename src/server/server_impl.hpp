// Owns: Server::Impl, what a Server holds behind its public header: the
// config (as started, and as in force since the last reload), the pool, the topic book, the loops' metrics and what the
// operator routes read of them, the admin API's desk and listener, the application's hooks, the extra
// WebSocket endpoints, one Worker per loop, the TLS context and what a
// reload runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "buf/block_share.hpp"
#include "buf/pool.hpp"
#include "server/address_limit.hpp"
#include "server/admin_view.hpp"
#include "server/live_settings.hpp"
#include "server/loop_broker.hpp"
#include "hub/topic_book.hpp"
#include "log/logger.hpp"
#include "log/output.hpp"
#include "metrics/registry.hpp"
#include "server/ops_view.hpp"
#include "server/system_feed.hpp"
#include "server/reload_trigger.hpp"
#include "server/worker.hpp"
#include "session/app_hooks.hpp"
#include "session/services.hpp"
#include "sluice/server.hpp"

namespace sluice::server {

struct Server::Impl {
  explicit Impl(const Config& config);

  // The settings the server was built with: what is built at start (the
  // pool, the book, the loops, the listeners) reads them through `config`.
  const std::shared_ptr<const Config> started;
  const Config& config;
  // The settings in force: `started` with the last reload's live settings
  // (apply_live_settings). One immutable snapshot every loop shares: each
  // holds this one, or the one before until it takes this one between two
  // events (Worker::reconfigure). Replaced whole, never changed, under the
  // mutex, which only a reload takes.
  std::mutex in_force_mutex;
  std::shared_ptr<const Config> in_force;
  // connection.send's data limits, the smallest in force since the start,
  // which a waiting publisher's window is made from (server_publish.cpp): a
  // connection keeps the budget it opened with, so a window widened by a
  // reload would let the publisher run further ahead than connections
  // opened before it can take, and they would be cut off. A raise widens
  // the window at the next start. Stored by a reload, under the mutex, and
  // read without it at each look for room, so that a publish takes no lock
  // and a wait under way keeps to a window a reload narrowed. A read during
  // a reload may pair a limit from before it with one from after, a window
  // looser than the new config's; it sizes only the one look that read it,
  // and the next look reads the new pair.
  std::atomic<std::size_t> send_max_frames;
  std::atomic<std::size_t> send_max_bytes;
  // Publishers (Server::publisher()) not yet destroyed: each holds a topic
  // of the book and a slab of the pool, so none may outlive the server.
  std::atomic<std::size_t> live_publishers{0};
  buf::Pool pool;
  buf::MemoryCap memory_cap;  // limits.server_bytes: what connections hold outside the pool
  buf::BlockShare h2_bodies;  // h2.body_blocks: the pool blocks HTTP/2 request bodies still arriving hold
  hub::TopicBook book;
  log::Output log_output{2};  // standard error, never blocking a loop
  log::Logger logger;         // log.level, log.format, log.access, log.max_line
  metrics::Registry registry;  // one cell set per loop, summed at scrape
  OpsView ops{config, registry, pool, book, logger, memory_cap};
  SystemFeed system_feed{config, registry, ops, book};
  session::AppHooks hooks;
  std::vector<session::WsRoute> ws_routes;
  std::atomic<std::int64_t> open_connections{0};
  AddressLimit address_limit{config.per_ip_connections};
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<int> listen_fds;
  std::uint16_t port = 0;
  AdminView admin{book, workers};
  int admin_fd = -1;  // the admin listener (admin.listen), served by loop 0
  std::uint16_t admin_port = 0;
  // TLS (null: plain TCP) and reloading; src/server/server_reload.cpp.
  std::unique_ptr<transport::TlsReloader> tls;
  std::vector<std::function<std::optional<std::string>()>> reload_steps;
  // One reload at a time: a step (sluiced's keeps what it applied last)
  // never runs on two threads at once.
  std::mutex reload_mutex;
  std::function<void(const std::vector<std::string>&)> on_reloaded;
  std::vector<LiveSettingsHook> live_setting_hooks;  // on_live_settings()
  ReloadTrigger reload_trigger;
  // Live settings handed to the loops and not yet taken by all of them; the
  // last to take them fires `settings_taken` on loop 0, which reports the
  // reload that applied them (its failures wait in `unreported`, loop 0 only).
  std::atomic<std::size_t> loops_taking{0};
  ReloadTrigger settings_taken;
  bool report_waiting = false;
  std::vector<std::string> unreported;
  std::string bind_error;
  // With broker.url: every loop's broker is built from this, and the node
  // tells each topic's reader loop when it starts and stops following it.
  std::unique_ptr<broker::BrokerConfig> broker_config;
  BrokerNode broker_node;
};

// The TLS context every loop takes for new connections; null when
// config.tls names no certificate.
[[nodiscard]] std::unique_ptr<transport::TlsReloader> make_tls_reloader(const Config& config);
// Loads the TLS certificate and key for the first time; false with
// `impl.bind_error` set when they cannot be loaded.
[[nodiscard]] bool load_tls(Server::Impl& impl);
// Reads the TLS files again and runs every reload step; the failures.
[[nodiscard]] std::vector<std::string> reload_now(Server::Impl& impl);
// What a request_reload() runs on loop 0: reload_now(), then on_reloaded
// once every loop has taken the settings it applied.
void run_requested_reload(Server::Impl& impl);
// On loop 0, when the last loop has taken a reload's live settings.
void report_settings_taken(Server::Impl& impl);

}  // namespace sluice::server
