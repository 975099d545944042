#include "server/worker.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/batch_scheduling.hpp"
#include "io/socket.hpp"
#include "log/logger.hpp"
#include "session/response.hpp"
#include "transport/plain_tcp.hpp"
#include "transport/tls_transport.hpp"

namespace sluice::server {

// Topics with news a loop has not taken yet: each is in the inbox at most
// once, so this many covers all but the busiest servers (past it, the loop
// checks every topic it follows).
constexpr std::size_t kTopicInbox = 4096;
constexpr std::size_t kCommandInbox = 65536;

Worker::Worker(const WorkerShared& shared, unsigned index)
    : tls_(shared.tls),
      open_connections_(shared.open_connections),
      address_limit_(shared.address_limit),
      hub_(shared.book, index),
      broker_(shared.broker_config == nullptr
                  ? nullptr
                  : std::make_unique<LoopBroker>(loop_, *shared.broker_config, shared.book, index, [this] { signal(); })),
      metrics_(shared.registry.loop(index)),
      services_({shared.pool, loop_, hub_, counters_, metrics_, shared.ops, shared.logger, *this, *this, shared.hooks,
                 shared.ws_routes, broker_ ? &broker_->publishes() : nullptr, broker_ ? &broker_->replays() : nullptr,
                 index, shared.memory_cap, shared.h2_bodies},
                shared.config),
      listing_(shared.listing),
      next_id_(index + 1),
      id_step_(shared.registry.loops()),
      topic_inbox_(kTopicInbox),
      command_inbox_(kCommandInbox) {
  sessions_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(shared.config->max_connections, 65536)));
  retired_.reserve(sessions_.capacity());
  loop_.reads().set_tick_bytes(shared.config->connection.receive_tick);
  arm_sweep();
  loop_.set_wake_task(&inbox_task_);
  shared.book.set_watcher(index, this);
  if (broker_) hub_.set_follower(shared.broker_node);
}

Worker::~Worker() {
  loop_.forget(this);
  loop_.forget(&inbox_task_);
  // The other loops' brokers may be gone already: the sessions' last
  // unsubscribes tell no one.
  hub_.set_follower(nullptr);
  sessions_.clear();
  for (const auto& [id, address] : address_by_id_) address_limit_.leave(address);
  if (listen_fd_ >= 0) loop_.unwatch(listen_fd_);
  if (admin_fd_ >= 0) loop_.unwatch(admin_fd_);
}

void Worker::run(int listen_fd, int admin_fd) {
  owner_.store(std::this_thread::get_id());
  services_.start();
  // Loop 0 runs on the application's thread: its policy comes back on return.
  const io::BatchScheduling scheduling(services_.config().sched_batch != 0);
  // Said once for all loops. A sandbox's system call filter (sluiced.service's)
  // refuses it, as does a thread the application put under another policy.
  static std::atomic<bool> said{false};
  if (scheduling.error() != 0 && !said.exchange(true)) {
    std::fprintf(stderr, "sluiced: sched_batch=1 not applied, the loops keep their scheduling policy: %s\n",
                 std::strerror(scheduling.error()));
  }
  listen_fd_ = listen_fd;
  loop_.watch(listen_fd_, io::kReadable, this);
  admin_fd_ = admin_fd;
  if (admin_fd_ >= 0) loop_.watch(admin_fd_, io::kReadable, &admin_accept_);
  accept_all();
  drain_inboxes();  // what was published before the loop started
  loop_.run();
  drain_on_shutdown();
}

void Worker::on_ready(std::uint32_t) { accept_all(); }

void Worker::accept_all() {
  for (;;) {
    const int fd = io::accept_nonblocking(listen_fd_);
    if (fd == -EINTR || fd == -ECONNABORTED) continue;
    if (fd < 0) return;  // EAGAIN, or out of fds: the listener stays readable
    ++counters_.accepted;
    metrics_.connections_accepted.add();
    if (open_connections_.fetch_add(1, std::memory_order_relaxed) >= services_.config().max_connections) {
      open_connections_.fetch_sub(1, std::memory_order_relaxed);
      ++counters_.refused_full;
      refuse(fd, session::kTooManyConnections);
    } else {
      admit(fd);
    }
  }
}

// Connections on the admin listener count in max_connections but are let
// in past it, up to kAdminRoom more: an operator can still reach a full
// node, to drain it.
constexpr std::int64_t kAdminRoom = 16;

void Worker::accept_admin() {
  for (;;) {
    const int fd = io::accept_nonblocking(admin_fd_);
    if (fd == -EINTR || fd == -ECONNABORTED) continue;
    if (fd < 0) return;
    const std::int64_t most = services_.config().max_connections + kAdminRoom;
    if (open_connections_.fetch_add(1, std::memory_order_relaxed) >= most) {
      open_connections_.fetch_sub(1, std::memory_order_relaxed);
      refuse(fd, session::kTooManyConnections);
    } else {
      admit(fd, session::Door::admin);
    }
  }
}

void Worker::admit(int fd, session::Door door) {
  AddressLimit::Key address;
  const bool counted = AddressLimit::key_of(fd, address);
  if (counted && !address_limit_.enter(address)) {
    open_connections_.fetch_sub(1, std::memory_order_relaxed);
    return refuse(fd, session::kTooManyFromAddress);
  }
  io::set_nodelay(fd, true);
  const Config& config = services_.config();
  io::set_notsent_lowat(fd, static_cast<int>(config.tcp_notsent_lowat));
  if (config.tcp_send_buffer > 0) io::set_send_buffer(fd, static_cast<int>(config.tcp_send_buffer));
  metrics_.connections_of(metrics::Transport::http).inc();
  auto session = std::make_unique<session::Session>(services_, make_transport(fd, door), next_id_, door,
                                                    counted ? AddressLimit::tag_of(address) : 0);
  if (session->start() != 0) {
    metrics_.connections_of(metrics::Transport::http).dec();
    open_connections_.fetch_sub(1, std::memory_order_relaxed);
    if (counted) address_limit_.leave(address);
    return;  // the session's transport closes fd
  }
  if (counted) address_by_id_.emplace(next_id_, address);
  slot_by_id_.emplace(next_id_, sessions_.size());
  opened(next_id_);
  next_id_ += id_step_;
  sessions_.push_back(std::move(session));
}

// A TLS connection takes the context current now: one reloaded later
// serves the connections accepted after it. The admin API's routes are
// HTTP/1.1's: ALPN does not choose h2 on its listener.
std::unique_ptr<conn::Transport> Worker::make_transport(int fd, session::Door door) const {
  if (tls_ != nullptr) {
    return std::make_unique<transport::TlsTransport>(tls_->current(), fd, door == session::Door::admin);
  }
  return std::make_unique<transport::PlainTcp>(fd);
}

void Worker::refuse(int fd, std::string_view reply) {
  // Past a connection limit a client is told so at once rather than left in
  // the backlog; the reply fits any fresh socket buffer, so one send suffices.
  // A TLS client could not read a plain reply: it is only closed.
  metrics_.connections_refused.add();
  if (tls_ == nullptr) (void)::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
  ::close(fd);
}

void Worker::retire(session::Session& session) {
  retired_.push_back(&session);
  loop_.defer(this);
}

void Worker::run_deferred() {
  for (session::Session* session : retired_) {
    const auto it = slot_by_id_.find(session->id());
    const std::size_t i = it->second;
    slot_by_id_.erase(it);
    closed(session->id());
    open_connections_.fetch_sub(1, std::memory_order_relaxed);
    // A stream that ended went back to being counted as http (see the
    // streams' on_closed), so every connection leaves from there.
    metrics_.connections_of(metrics::Transport::http).dec();
    if (const auto a = address_by_id_.find(session->id()); a != address_by_id_.end()) {
      address_limit_.leave(a->second);
      address_by_id_.erase(a);
    }
    if (i + 1 != sessions_.size()) {
      std::swap(sessions_[i], sessions_.back());
      slot_by_id_[sessions_[i]->id()] = i;
    }
    sessions_.pop_back();
  }
  retired_.clear();
}

SendStatus Worker::post(std::uint64_t id, std::int32_t stream, buf::FrameRef frame) {
  if (!frame) return SendStatus::invalid;  // an empty command is a close (close_later)
  if (!command_inbox_.try_push(Command{id, std::move(frame), 0, stream})) return SendStatus::busy;
  signal();
  return SendStatus::ok;
}

std::uint64_t Worker::new_id() {
  const std::uint64_t id = next_id_;
  next_id_ += id_step_;
  return id;
}

bool Worker::close_later(std::uint64_t id) {
  if (!command_inbox_.try_push(Command{id, {}})) return false;
  signal();
  return true;
}

bool Worker::topic_changed(hub::TopicRecord* record) {
  const bool queued = topic_inbox_.try_push(std::move(record));
  if (!queued) topics_overflowed_.store(true, std::memory_order_release);
  signal();
  return queued;
}

void Worker::room_made() {
  room_made_.store(true, std::memory_order_release);
  signal();
}

// On the loop's own thread the drain is simply deferred to the end of the
// tick; another thread wakes the loop, once until the loop has drained.
void Worker::signal() {
  if (owner_.load(std::memory_order_relaxed) == std::this_thread::get_id()) return loop_.defer(&inbox_task_);
  if (!wake_pending_.exchange(true, std::memory_order_acq_rel)) loop_.wake();
}

void Worker::drain_inboxes() {
  // Cleared first: anything pushed from here on either is seen below or
  // wakes the loop again.
  wake_pending_.store(false, std::memory_order_release);
  if (config_waiting_.exchange(false, std::memory_order_acq_rel)) take_config();
  hub::TopicRecord* record = nullptr;
  while (topic_inbox_.try_pop(record)) hub_.drain(record);
  if (topics_overflowed_.exchange(false, std::memory_order_acq_rel)) hub_.drain_pending();
  services_.decision_mailbox()->drain();
  Command command;
  while (command_inbox_.try_pop(command)) {
    if (command.listing != 0) {
      list_connections(command.listing);
      continue;
    }
    const auto it = slot_by_id_.find(command.id);
    if (!command.frame) {
      if (it != slot_by_id_.end() && !sessions_[it->second]->ended()) sessions_[it->second]->shutdown();
      continue;
    }
    if (it == slot_by_id_.end() || !sessions_[it->second]->post(command.stream, std::move(command.frame))) {
      ++counters_.sends_to_closed;
      metrics_.sends_to_closed.add();
    }
  }
  if (room_made_.exchange(false, std::memory_order_acq_rel)) {
    services_.held_publishers().retry();
    if (broker_) broker_->room_made();
  }
  if (broker_) broker_->run_checks();
}

void Worker::sweep() {
  // A publisher held for want of pool memory has nobody to wake it.
  services_.held_publishers().retry();
  const auto now = loop_.now();
  // Index loop: a timeout may close a session, which only retires it.
  for (std::size_t i = 0; i < sessions_.size(); ++i) {
    if (!sessions_[i]->closed()) sessions_[i]->tick(now);
  }
  shed_behind_streams();
  if (broker_) {
    broker_->report(services_.logger(), metrics_);
    broker_->retry_refused(now);
  }
}

void Worker::shed_behind_streams() {
  const std::int64_t after_ms = services_.config().pool_shed_after_ms;
  const std::uint32_t looks = PoolShedding::looks_for(after_ms, sweep_period_);
  if (!shedding_.pressed(services_.pool().stats(), hub_.room_refusals(), looks) || looks == 0) return;
  std::size_t shed = 0;
  for (std::size_t i = 0; i < sessions_.size(); ++i) shed += sessions_[i]->shed_behind(looks);
  log::Logger* logger = services_.logger();
  if (shed == 0 || logger == nullptr) return;
  logger->warn("pool held by queued data: streams whose reader stopped or fell behind were cut off")
      .field("streams", shed)
      .field("behind_ms_at_least", after_ms)
      .field("key", "pool.shed_after_ms");
}

void Worker::drain_on_shutdown() {
  // A publisher waiting for room would wait its whole timeout for loops
  // that deliver no more: it is told the server stopped. Here, on the
  // loop's thread, because stop() itself may run in a signal handler.
  hub_.close_publish_gate();
  // Not listening any more: a client that connects now is refused at once
  // (and one in the backlog is reset) rather than accepted by nobody. The
  // descriptors stay open until the server closes them.
  loop_.unwatch(listen_fd_);
  (void)::shutdown(listen_fd_, SHUT_RD);
  listen_fd_ = -1;
  if (admin_fd_ >= 0) {
    loop_.unwatch(admin_fd_);
    (void)::shutdown(admin_fd_, SHUT_RD);
    admin_fd_ = -1;
  }
  // What was published before stop() but not yet handed to this loop's
  // subscribers goes into their queues first: the flushes begun below are
  // each connection's last.
  drain_inboxes();
  for (const auto& session : sessions_) session->shutdown();
  const std::int64_t grace = grace_ms_.load(std::memory_order_relaxed);
  const std::int64_t linger = services_.config().linger_timeout_ms + 100;
  const auto deadline = io::Loop::Clock::now() + std::chrono::milliseconds(grace >= 0 ? grace : linger);
  while (!sessions_.empty() && io::Loop::Clock::now() < deadline) loop_.run_once(10);
  // A peer still lingering is closed now rather than destroyed with the
  // worker, so that its streams let go of their topics and the
  // application's on_close follows its on_open.
  for (const auto& session : sessions_) {
    if (!session->closed()) session->close_now(conn::CloseReason::shutdown);
  }
}

}  // namespace sluice::server
