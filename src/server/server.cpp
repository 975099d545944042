#include "sluice/server.hpp"

#include "server/ws_routes.hpp"

#include <unistd.h>

#include <algorithm>

#include "hub/event_id.hpp"
#include "io/socket.hpp"

namespace sluice::server {

unsigned loop_count(const Config& config) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto wanted = config.threads == 0 ? cores : static_cast<unsigned>(config.threads);
  return std::min(wanted, hub::kMaxLoops);
}

Server::Server(const Config& config)
    : config_(config), pool_(config_.pool), book_(pool_, config_.hub, hub::make_epoch()) {
  for (unsigned i = 0; i < loop_count(config_); ++i) {
    workers_.push_back(std::make_unique<Worker>(config_, pool_, book_, i, open_connections_, ws_routes_));
    workers_.back()->set_open_handler(&open_handler_);
  }
}

Server::~Server() {
  workers_.clear();
  for (int fd : listen_fds_) ::close(fd);
}

int Server::bind() {
  io::Endpoint endpoint;
  if (!io::parse_endpoint(config_.listen, endpoint)) return -EINVAL;
  const io::ListenOptions options{.reuse_port = workers_.size() > 1};
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const int fd = io::listen_tcp(endpoint, options);
    if (fd < 0) return fd;
    listen_fds_.push_back(fd);
    // Port 0 picks a port for the first socket; the others share it.
    if (i == 0) endpoint.port = port_ = io::local_port(fd);
  }
  return 0;
}

void Server::run() {
  if (listen_fds_.size() != workers_.size()) return;
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < workers_.size(); ++i) {
    threads.emplace_back([this, i] { workers_[i]->run(listen_fds_[i]); });
  }
  workers_[0]->run(listen_fds_[0]);
  for (auto& t : threads) t.join();
}

void Server::stop() {
  for (const auto& worker : workers_) worker->stop();
}

hub::PublishResult Server::publish(std::string_view topic, std::string_view data, std::string_view event,
                                   std::string_view key) {
  return book_.publish(topic, {data, event, key});
}

void Server::every(std::chrono::milliseconds period, std::function<void()> fn) {
  workers_[0]->loop().every(period, std::move(fn));
}

ServerStats Server::stats() const {
  ServerStats total;
  for (const auto& worker : workers_) {
    const session::LoopCounters& s = worker->counters();
    total.accepted += s.accepted;
    total.refused_full += s.refused_full;
    total.streams += s.streams;
    total.slow_disconnects += s.slow_disconnects;
    total.events_dropped += s.events_dropped;
    total.protocol_errors += s.protocol_errors;
    total.sends_to_closed += s.sends_to_closed;
    total.publishes_held += s.publishes_held;
  }
  return total;
}

void add_ws_route(Server& server, session::WsRoute route) { server.ws_routes_.push_back(std::move(route)); }

}  // namespace sluice::server
