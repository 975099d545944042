#include "sluice/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "hub/event_id.hpp"
#include "io/socket.hpp"
#include "server/server_impl.hpp"
#include "server/broker_config.hpp"
#include "server/memory_shares.hpp"
#include "server/ws_routes.hpp"
#include "session/config_limits.hpp"
#include "session/publish_metrics.hpp"

namespace sluice::server {

namespace {

log::LogConfig log_config(const OpsConfig& ops) {
  // The words were checked when the keys were set.
  return {.level = log::parse_level(ops.log_level).value_or(log::Level::info),
          .format = log::parse_format(ops.log_format).value_or(log::Format::logfmt),
          .max_line = static_cast<std::size_t>(ops.log_max_line),
          .access = ops.log_access != 0};
}

}  // namespace

unsigned loop_count(const Config& config) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto wanted = config.threads == 0 ? cores : static_cast<unsigned>(config.threads);
  return std::min(wanted, hub::kMaxLoops);
}

Server::Impl::Impl(const Config& c)
    : started(std::make_shared<const Config>(c)),
      config(*started),
      in_force(started),
      send_max_frames(config.connection.send.max_frames),
      send_max_bytes(config.connection.send.max_bytes),
      pool(session::pool_config(config.pool)),
      memory_cap(static_cast<std::size_t>(config.server_memory_bytes), tls_record_reserve(config)),
      h2_bodies(session::h2_body_blocks(config)),
      book(pool, session::hub_limits(config.hub), hub::make_epoch()),
      logger(log_config(config.ops), log_output),
      registry(loop_count(config)),
      tls(make_tls_reloader(config)),
      reload_trigger([this] { run_requested_reload(*this); }),
      settings_taken([this] { report_settings_taken(*this); }) {}

Server::Server(const Config& config) : impl_(std::make_unique<Impl>(config)) {
  Impl& s = *impl_;
  if (s.config.broker.enabled()) s.broker_config = std::make_unique<broker::BrokerConfig>(make_broker_config(s.config));
  const WorkerShared shared{s.started,          s.pool,          s.book,  s.registry, s.ops,      &s.logger,
                            s.open_connections, s.address_limit, s.hooks, s.ws_routes, s.tls.get(),
                            s.broker_config.get(), &s.broker_node, &s.admin.listing(), &s.memory_cap,
                            &s.h2_bodies};
  for (unsigned i = 0; i < loop_count(s.config); ++i) {
    s.workers.push_back(std::make_unique<Worker>(shared, i));
    if (LoopBroker* broker = s.workers.back()->broker()) s.broker_node.add_loop(*broker);
  }
  if (!s.config.ops.admin_listen.empty()) s.ops.set_admin(&s.admin);
  if (s.config.ops.dashboard != 0) {
    s.workers[0]->loop().every(std::chrono::milliseconds(s.config.ops.sys_interval_ms),
                               [&s] { s.system_feed.tick(); });
  }
}

// A Publisher left alive would let go of its topic and its slab into the
// book and the pool freed here, corrupting memory later and elsewhere: the
// mistake is stopped here, where it is made, with a line naming it.
Server::~Server() {
  if (const std::size_t left = impl_->live_publishers.load(std::memory_order_acquire); left != 0) {
    std::fprintf(stderr, "sluice: a Server destroyed while %zu of its Publishers live; destroy them first\n", left);
    std::abort();
  }
  impl_->workers.clear();
  for (int fd : impl_->listen_fds) ::close(fd);
  if (impl_->admin_fd >= 0) ::close(impl_->admin_fd);
}

Server::Impl& impl_of(Server& server) { return *server.impl_; }

namespace {

// The admin API's own listener, one socket, served by loop 0.
int bind_admin(Server::Impl& s) {
  if (s.config.ops.admin_listen.empty()) return 0;
  io::Endpoint endpoint;
  if (!io::parse_endpoint(s.config.ops.admin_listen, endpoint)) return -EINVAL;
  const int fd = io::listen_tcp(endpoint, io::ListenOptions{});
  if (fd < 0) {
    s.bind_error = "cannot listen on admin.listen " + s.config.ops.admin_listen + ": " + std::strerror(-fd);
    return fd;
  }
  s.admin_fd = fd;
  s.admin_port = io::local_port(fd);
  return 0;
}

}  // namespace

int Server::bind() {
  Impl& s = *impl_;
  io::Endpoint endpoint;
  if (!io::parse_endpoint(s.config.listen, endpoint)) return -EINVAL;
  // The pool is mapped when the server is made; a machine that cannot give
  // it would have every connection find no block, and be dropped unanswered.
  if (!s.pool.ok()) {
    const buf::PoolConfig pool = session::pool_config(s.config.pool);
    s.bind_error = "config keys 'pool.block_count' and 'pool.block_size': the pool's " +
                   std::to_string(buf::Pool::arena_bytes(pool) >> 20) + " MiB could not be allocated";
    return -ENOMEM;
  }
  if (!load_tls(s)) return -EINVAL;
  const io::ListenOptions options{.reuse_port = s.workers.size() > 1};
  // SO_REUSEPORT lets any process of the same user join the group: a second
  // sluiced started on this one's port would take half its new clients,
  // each half with its own ids and history, and neither would fail. The
  // address must be free first; then this process's loops take it together.
  if (options.reuse_port && endpoint.port != 0) {
    if (const int free = io::check_address_free(endpoint); free < 0) return free;
  }
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    const int fd = io::listen_tcp(endpoint, options);
    if (fd < 0) return fd;
    s.listen_fds.push_back(fd);
    // Port 0 picks a port for the first socket; the others share it.
    if (i == 0) endpoint.port = s.port = io::local_port(fd);
  }
  return bind_admin(s);
}

std::uint16_t Server::port() const { return impl_->port; }

std::uint16_t Server::admin_port() const { return impl_->admin_port; }

std::size_t Server::loops() const { return impl_->workers.size(); }

void Server::run() {
  Impl& s = *impl_;
  if (s.listen_fds.size() != s.workers.size()) return;
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < s.workers.size(); ++i) {
    threads.emplace_back([&s, i] { s.workers[i]->run(s.listen_fds[i]); });
  }
  // Loop 0 runs on this thread, so its loop may be touched here.
  s.reload_trigger.watch(s.workers[0]->loop());
  s.settings_taken.watch(s.workers[0]->loop());
  s.workers[0]->run(s.listen_fds[0], s.admin_fd);
  s.settings_taken.unwatch();
  s.reload_trigger.unwatch();
  for (auto& t : threads) t.join();
}

void Server::stop() {
  for (const auto& worker : impl_->workers) worker->stop();
}

void Server::drain(std::chrono::milliseconds grace) {
  for (const auto& worker : impl_->workers) worker->drain(grace);
}

void Server::every(std::chrono::milliseconds period, std::function<void()> fn) {
  impl_->workers[0]->loop().every(period, std::move(fn));
}

void Server::on_open(OpenHandler fn) { impl_->hooks.on_open = std::move(fn); }
void Server::on_close(CloseHandler fn) { impl_->hooks.on_close = std::move(fn); }
void Server::authorize(Authorizer fn) { impl_->hooks.authorize = std::move(fn); }

ServerStats Server::stats() const {
  ServerStats total;
  for (const auto& worker : impl_->workers) {
    ServerStats::each([](const char*, const auto& count, std::uint64_t& sum) { sum += count.load(); },
                      worker->counters(), total);
  }
  return total;
}

PoolStats Server::pool_stats() const {
  const buf::PoolStats p = impl_->pool.stats();
  return {p.block_count, p.block_size, p.reserve, p.free_blocks, p.min_free_blocks, p.data_refusals, p.control_refusals};
}

MemoryStats Server::memory_stats() const {
  const buf::MemoryCap& m = impl_->memory_cap;
  return {m.charged(), m.limit(), m.reserve(), m.refused_by_connection(), m.refused_by_server()};
}

void add_ws_route(Server& server, session::WsRoute route) { impl_of(server).ws_routes.push_back(std::move(route)); }

}  // namespace sluice::server
