// Owns: Worker, one event loop and everything it serves: its listening
// socket, its sessions, its view of the topics (a hub::Hub), the services
// its sessions share, and the inboxes through which other threads reach it.
// A session belongs to one worker for its whole life and no other thread
// touches it. The loop reads the config through the snapshot it holds
// (LoopServices), shared with the other loops and never changed; a reload
// hands it the next one, which it takes on its own thread. The worker
// knows no protocol: it accepts, ticks, posts frames to sessions by id,
// and reaps the closed ones.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "buf/memory_account.hpp"
#include "buf/block_share.hpp"
#include "buf/pool.hpp"
#include "hub/hub.hpp"
#include "io/loop.hpp"
#include "io/mpsc_queue.hpp"
#include "metrics/registry.hpp"
#include "server/address_limit.hpp"
#include "server/connection_listing.hpp"
#include "server/loop_broker.hpp"
#include "server/pool_shedding.hpp"
#include "session/app_hooks.hpp"
#include "session/connection_state.hpp"
#include "session/counters.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "sluice/config.hpp"
#include "sluice/server.hpp"
#include "transport/tls_reloader.hpp"

namespace sluice::server {

// What every worker of a server shares; all of it outlives the workers.
struct WorkerShared {
  // The settings at start: one snapshot, which every loop holds until a
  // reload hands it the next (reconfigure).
  std::shared_ptr<const Config> config;
  buf::Pool& pool;
  hub::TopicBook& book;
  metrics::Registry& registry;  // loop i writes only registry.loop(i)
  const session::OpsPages& ops;
  log::Logger* logger;
  // Connections across every loop, so that max_connections caps the
  // server, not each loop.
  std::atomic<std::int64_t>& open_connections;
  AddressLimit& address_limit;  // limits.per_ip_connections, across every loop
  const session::AppHooks& hooks;
  const std::vector<session::WsRoute>& ws_routes;
  // The TLS context for new connections; null when the port speaks plain TCP.
  const transport::TlsReloader* tls = nullptr;
  // With a broker (broker.url): what each loop's broker is built from, and
  // the node's router of follow changes to each topic's reader loop.
  const broker::BrokerConfig* broker_config = nullptr;
  BrokerNode* broker_node = nullptr;
  // The admin API's listing of connections, which each loop adds to.
  ConnectionListing* listing = nullptr;
  // What every connection's buffers outside the pool draw on (limits.server_bytes).
  buf::MemoryCap* memory_cap = nullptr;
  buf::BlockShare* h2_bodies = nullptr;  // h2.body_blocks, across every loop
};

class Worker final : public io::Handler,
                     public io::Deferred,
                     public hub::TopicWatcher,
                     public session::SessionOwner,
                     public session::FramePoster {
 public:
  // `index` is the loop's number among the server's loops.
  Worker(const WorkerShared& shared, unsigned index);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Serves `listen_fd` (non-blocking, listening) and, when given,
  // `admin_fd` (the admin API's listener) until stop(). Then stops
  // listening (a new client is refused, not left in the backlog), lets
  // every session flush and close (bounded by the linger timeout, or the
  // drain's), and returns.
  void run(int listen_fd, int admin_fd = -1);
  void stop() { loop_.stop(); }
  // stop(), giving the sessions up to `grace` to close (POST /admin/drain).
  // Any thread.
  void drain(std::chrono::milliseconds grace) {
    grace_ms_.store(grace.count(), std::memory_order_relaxed);
    loop_.stop();
  }

  [[nodiscard]] io::Loop& loop() { return loop_; }
  // Any thread: whether the caller is this loop's thread.
  [[nodiscard]] bool runs_here() const { return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id(); }
  // Before run(): something built for this loop that works on it (a client
  // of another server, watching its sockets here), destroyed after the
  // loop's sessions (which may still hand it work as they close) and
  // before the loop.
  void keep(std::shared_ptr<void> part) { loop_parts_.push_back(std::move(part)); }
  [[nodiscard]] const session::LoopCounters& counters() const { return counters_; }
  // Null without a broker.
  [[nodiscard]] LoopBroker* broker() { return broker_.get(); }

  // Any thread (a ConnectionRef): queues a whole frame for connection `id`
  // (its HTTP/2 stream `stream`, when not 0).
  [[nodiscard]] SendStatus post(std::uint64_t id, std::int32_t stream, buf::FrameRef frame) override;
  [[nodiscard]] std::uint64_t new_id() override;
  // Any thread (the admin API): connection `id`, if this loop still has
  // it, says goodbye and closes. False when the inbox is full.
  [[nodiscard]] bool close_later(std::uint64_t id);
  // Any thread (the admin API): whether this loop has connection `id` open.
  [[nodiscard]] bool has_connection(std::uint64_t id) const;
  // Any thread (the admin API): this loop adds its connections to listing
  // `ticket` when it next drains its inbox. False when the inbox is full.
  [[nodiscard]] bool list_later(std::uint64_t ticket);
  // Any thread (a reload): the loop takes `next` when it next drains its
  // inbox (LoopServices::reconfigure, and the sweep re-armed for the new
  // timeouts), then calls `taken` on its own thread. A config handed over
  // before the loop took the one before replaces it; the replaced one's
  // `taken` is called at once, so each call is answered once.
  void reconfigure(std::shared_ptr<const Config> next, std::function<void()> taken);
  // Any thread (the topic book): `record` has events this loop must deliver.
  bool topic_changed(hub::TopicRecord* record) override;
  // Any thread (the topic book): a topic a held publisher waits on has room.
  void room_made() override;

 private:
  // A frame for connection `id`; without one (a ConnectionRef never posts
  // an empty frame), the admin API's close of it; with a listing ticket
  // (and no id), the admin API's listing of every connection.
  struct Command {
    std::uint64_t id = 0;
    buf::FrameRef frame;
    std::uint64_t listing = 0;
    std::int32_t stream = 0;
  };
  // The admin listener's readiness, on loop 0 only.
  struct AdminAccept final : io::Handler {
    explicit AdminAccept(Worker& w) : worker(w) {}
    void on_ready(std::uint32_t) override { worker.accept_admin(); }
    Worker& worker;
  };
  struct InboxTask final : io::Deferred {
    explicit InboxTask(Worker& w) : worker(w) {}
    void run_deferred() override { worker.drain_inboxes(); }
    Worker& worker;
  };

  // session::SessionOwner: destroyed at the end of the tick, once no ready
  // event can still name it.
  void retire(session::Session& session) override;

  void on_ready(std::uint32_t events) override;  // the listener
  void run_deferred() override;                  // reaps retired sessions
  void accept_all();
  void accept_admin();
  void admit(int fd, session::Door door = session::Door::public_port);
  void refuse(int fd, std::string_view reply);
  [[nodiscard]] std::unique_ptr<conn::Transport> make_transport(int fd, session::Door door) const;
  void sweep();
  // Under the sweep, when the pool refuses data (server/pool_shedding.hpp).
  void shed_behind_streams();
  void drain_on_shutdown();
  void signal();
  void drain_inboxes();
  // worker_listing.cpp: the admin API's view of this loop's connections.
  void list_connections(std::uint64_t ticket);
  // worker_reconfigure.cpp: a reload's config, taken on the loop's thread.
  void take_config();
  void arm_sweep();
  void opened(std::uint64_t id);
  void closed(std::uint64_t id);

  const transport::TlsReloader* tls_;
  std::atomic<std::int64_t>& open_connections_;
  AddressLimit& address_limit_;
  io::Loop loop_;
  std::vector<std::shared_ptr<void>> loop_parts_;  // keep(): destroyed before loop_
  hub::Hub hub_;
  std::unique_ptr<LoopBroker> broker_;  // before services_, which hands its publishes to sessions
  session::LoopCounters counters_;
  metrics::LoopMetrics& metrics_;
  session::LoopServices services_;
  int listen_fd_ = -1;
  int admin_fd_ = -1;
  AdminAccept admin_accept_{*this};
  std::atomic<std::int64_t> grace_ms_{-1};  // a drain's, else the linger timeout's
  std::vector<std::unique_ptr<session::Session>> sessions_;
  std::unordered_map<std::uint64_t, std::size_t> slot_by_id_;  // where each id is in sessions_
  std::unordered_map<std::uint64_t, AddressLimit::Key> address_by_id_;  // what each counts in address_limit_
  std::vector<session::Session*> retired_;
  ConnectionListing* listing_;
  // The ids open on this loop, for the admin API on another thread; taken
  // when a connection opens or closes, never per event.
  mutable std::mutex live_mutex_;
  std::unordered_set<std::uint64_t> live_ids_;
  // Ids are unique across the server's loops: loop i of n gives i+1,
  // i+1+n, ... (ConnectionRef::id, the access log's conn=, the admin API).
  std::uint64_t next_id_;
  const std::uint64_t id_step_;

  // Cross-thread: topics with news and frames for connections. A full
  // topic inbox sets `topics_overflowed_` and the loop checks every topic.
  io::MpscQueue<hub::TopicRecord*> topic_inbox_;
  io::MpscQueue<Command> command_inbox_;
  std::atomic<bool> topics_overflowed_{false};
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> room_made_{false};
  std::atomic<std::thread::id> owner_{};
  io::Loop::TimerId sweep_timer_ = 0;
  std::chrono::milliseconds sweep_period_{0};
  PoolShedding shedding_;
  // A reload's config waiting for the loop: taken under the mutex, which
  // the event path never touches (it only reads `config_waiting_`).
  struct ConfigHandover {
    std::shared_ptr<const Config> config;
    std::function<void()> taken;
  };
  std::mutex config_mutex_;
  ConfigHandover next_config_;
  std::atomic<bool> config_waiting_{false};
  InboxTask inbox_task_{*this};
};

}  // namespace sluice::server
