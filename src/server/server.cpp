#include "sluice/server/server.hpp"

#include <unistd.h>

#include "sluice/hub/event_id.hpp"
#include "sluice/io/socket.hpp"

namespace sluice::server {

Server::Server(const Config& config)
    : config_(config), worker_(std::make_unique<Worker>(config_, hub::make_epoch())) {}

Server::~Server() {
  worker_.reset();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

int Server::bind() {
  io::Endpoint endpoint;
  if (!io::parse_endpoint(config_.listen, endpoint)) return -EINVAL;
  const int fd = io::listen_tcp(endpoint, {});
  if (fd < 0) return fd;
  listen_fd_ = fd;
  port_ = io::local_port(fd);
  return 0;
}

void Server::run() {
  if (listen_fd_ >= 0) worker_->run(listen_fd_);
}

hub::PublishResult Server::publish(std::string_view topic, std::string_view data, std::string_view event) {
  return worker_->hub().publish(topic, {data, event});
}

void Server::every(std::chrono::milliseconds period, std::function<void()> fn) {
  worker_->loop().every(period, std::move(fn));
}

}  // namespace sluice::server
