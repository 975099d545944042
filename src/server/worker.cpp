#include "sluice/server/worker.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "sluice/io/socket.hpp"
#include "sluice/proto/sse.hpp"
#include "sluice/server/session.hpp"

namespace sluice::server {

namespace {

constexpr std::string_view kFullResponse =
    "HTTP/1.1 503 Service Unavailable\r\nServer: sluice\r\nContent-Length: 20\r\nConnection: close\r\n"
    "Retry-After: 1\r\n\r\ntoo many connections";

// How often timeouts are checked: often enough to honour the shortest one
// within a fraction of itself, never more than every 10 ms.
std::chrono::milliseconds sweep_period(const Config& c) {
  const std::int64_t shortest = std::min({c.handshake_timeout_ms, c.idle_timeout_ms, c.linger_timeout_ms});
  return std::chrono::milliseconds(std::clamp<std::int64_t>(shortest / 4, 10, 1000));
}

}  // namespace

Worker::Worker(const Config& config, std::string epoch)
    : config_(config),
      pool_(config.pool),
      hub_(pool_, config.hub, std::move(epoch)),
      subprotocols_(config.ws.subprotocols.begin(), config.ws.subprotocols.end()),
      allowed_origins_(config.ws.allowed_origins.begin(), config.ws.allowed_origins.end()) {
  sessions_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(config.max_connections, 65536)));
  loop_.every(std::chrono::milliseconds(config.heartbeat_ms), [this] { send_heartbeats(); });
  loop_.every(sweep_period(config), [this] { sweep(); });
}

Worker::~Worker() {
  loop_.forget(this);
  sessions_.clear();
  if (listen_fd_ >= 0) loop_.unwatch(listen_fd_);
}

void Worker::run(int listen_fd) {
  listen_fd_ = listen_fd;
  loop_.watch(listen_fd_, io::kReadable, this);
  accept_all();
  loop_.run();
  drain_on_shutdown();
}

void Worker::on_ready(std::uint32_t) { accept_all(); }

void Worker::accept_all() {
  for (;;) {
    const int fd = io::accept_nonblocking(listen_fd_);
    if (fd == -EINTR || fd == -ECONNABORTED) continue;
    if (fd < 0) return;  // EAGAIN, or out of fds: the listener stays readable
    ++stats_.accepted;
    if (sessions_.size() >= static_cast<std::size_t>(config_.max_connections)) {
      refuse(fd);
    } else {
      admit(fd);
    }
  }
}

void Worker::admit(int fd) {
  io::set_nodelay(fd, true);
  io::set_notsent_lowat(fd, static_cast<int>(config_.tcp_notsent_lowat));
  if (config_.tcp_send_buffer > 0) io::set_send_buffer(fd, static_cast<int>(config_.tcp_send_buffer));
  auto session = std::make_unique<Session>(*this, fd);
  if (session->start() != 0) return;  // the session's destructor closes fd
  session->index = sessions_.size();
  sessions_.push_back(std::move(session));
}

void Worker::refuse(int fd) {
  // Past max_connections a client is told so at once rather than left in the
  // backlog; the reply fits any fresh socket buffer, so one send suffices.
  ++stats_.refused_full;
  [[maybe_unused]] const auto n = ::send(fd, kFullResponse.data(), kFullResponse.size(), MSG_NOSIGNAL);
  ::close(fd);
}

void Worker::retire(Session* session) {
  retired_.push_back(session);
  loop_.defer(this);
}

void Worker::run_deferred() {
  for (Session* session : retired_) {
    const std::size_t i = session->index;
    std::swap(sessions_[i], sessions_.back());
    sessions_[i]->index = i;
    sessions_.pop_back();
  }
  retired_.clear();
}

void Worker::send_heartbeats() {
  buf::FrameBuilder builder(pool_, buf::Lane::control);
  if (proto::sse::encode_comment("", builder) != proto::sse::EncodeStatus::ok) return;
  const buf::FrameRef beat = builder.finish();
  if (!beat) return;
  for (const auto& session : sessions_) {
    if (session->state() == Session::State::sse && !session->closing()) {
      (void)session->send_control(beat);  // a full control lane already has bytes going out
    }
  }
}

void Worker::sweep() {
  const auto now = loop_.now();
  // Index loop: a timeout may close a session, which only retires it.
  for (std::size_t i = 0; i < sessions_.size(); ++i) {
    if (!sessions_[i]->closed()) sessions_[i]->check_timeouts(now);
  }
}

void Worker::drain_on_shutdown() {
  loop_.unwatch(listen_fd_);
  listen_fd_ = -1;
  for (const auto& session : sessions_) session->begin_shutdown();
  const auto deadline = io::Loop::Clock::now() + std::chrono::milliseconds(config_.linger_timeout_ms + 100);
  while (!sessions_.empty() && io::Loop::Clock::now() < deadline) loop_.run_once(10);
}

}  // namespace sluice::server
