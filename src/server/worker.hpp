// Owns: Worker, one event loop and everything it serves: its listening
// socket, its sessions, its view of the topics (a hub::Hub) and the inboxes
// through which other threads reach it. A session belongs to one worker for
// its whole life and no other thread touches it.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "buf/pool.hpp"
#include "hub/hub.hpp"
#include "io/loop.hpp"
#include "io/mpsc_queue.hpp"
#include "sluice/config.hpp"
#include "server/connection_ref.hpp"

namespace sluice::server {

class Session;

// Counters any thread may read while the loop runs.
struct WorkerStats {
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> refused_full{0};      // accepted past max_connections, sent 503
  std::atomic<std::uint64_t> streams{0};           // SSE streams and WebSockets open
  std::atomic<std::uint64_t> slow_disconnects{0};  // closed because the send budget was spent
  std::atomic<std::uint64_t> events_dropped{0};    // dropped or conflated by a policy, and reported
  std::atomic<std::uint64_t> protocol_errors{0};   // WebSockets failed with 1002/1007/1009
  std::atomic<std::uint64_t> sends_to_closed{0};   // ConnectionRef frames whose connection had gone
  std::atomic<std::uint64_t> publishes_held{0};    // WebSocket messages held until the hub had room
};

using OpenHandler = std::function<void(ConnectionRef, std::string_view path)>;

class Worker final : public io::Handler, public io::Deferred, public hub::TopicWatcher {
 public:
  // Everything passed must outlive the worker. `index` is its loop's
  // number among the server's loops.
  // `open_connections` counts connections across every loop, so that
  // max_connections caps the server, not each loop.
  Worker(const Config& config, buf::Pool& pool, hub::TopicBook& book, unsigned index,
         std::atomic<std::int64_t>& open_connections);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Serves `listen_fd` (non-blocking, listening) until stop(). Then stops
  // accepting, lets every session flush and close (bounded by the linger
  // timeout), and returns.
  void run(int listen_fd);
  void stop() { loop_.stop(); }

  [[nodiscard]] io::Loop& loop() { return loop_; }
  [[nodiscard]] buf::Pool& pool() { return pool_; }
  [[nodiscard]] hub::Hub& hub() { return hub_; }
  [[nodiscard]] const Config& config() const { return config_; }
  [[nodiscard]] const WorkerStats& stats() const { return stats_; }
  [[nodiscard]] WorkerStats& mutable_stats() { return stats_; }
  // The WebSocket handshake's options, as views of the config's lists.
  [[nodiscard]] std::span<const std::string_view> subprotocols() const { return subprotocols_; }
  [[nodiscard]] std::span<const std::string_view> allowed_origins() const { return allowed_origins_; }

  // Called (on this loop) when a WebSocket opens, if set before run().
  void set_open_handler(const OpenHandler* handler) { open_handler_ = handler; }
  // A session reports that it became a WebSocket.
  void opened(Session& session, std::string_view path);
  // Called by a session from on_closed(): it is destroyed at the end of the
  // tick, once no ready event can still name it.
  void retire(Session* session);

  // Any thread: queues a whole frame for the connection `id`.
  [[nodiscard]] SendStatus post(std::uint64_t id, buf::FrameRef frame);
  // Any thread (the topic book): `record` has events this loop must deliver.
  void topic_changed(hub::TopicRecord* record) override;
  // Any thread (the topic book): a topic a held publisher waits on has room.
  void room_made() override;

  // A WebSocket publisher whose message the hub refused as busy or out of
  // memory holds it and stops reading; the worker retries it when a loop
  // has delivered (room_made) and on every sweep. Drop before destruction.
  void hold_publisher(Session* session);
  void drop_publisher(Session* session);

 private:
  struct Command {
    std::uint64_t id = 0;
    buf::FrameRef frame;
  };
  struct InboxTask final : io::Deferred {
    explicit InboxTask(Worker& w) : worker(w) {}
    void run_deferred() override { worker.drain_inboxes(); }
    Worker& worker;
  };

  void on_ready(std::uint32_t events) override;  // the listener
  void run_deferred() override;                  // reaps retired sessions
  void accept_all();
  void admit(int fd);
  void refuse(int fd);
  void send_heartbeats();
  void sweep();
  void drain_on_shutdown();
  void signal();
  void drain_inboxes();
  void retry_held_publishers();

  const Config& config_;
  buf::Pool& pool_;
  std::atomic<std::int64_t>& open_connections_;
  io::Loop loop_;
  hub::Hub hub_;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<Session*> retired_;
  std::vector<Session*> held_publishers_;
  std::vector<Session*> retrying_;  // held_publishers_ while being retried
  std::unordered_map<std::uint64_t, Session*> by_id_;
  std::uint64_t next_id_ = 1;
  WorkerStats stats_;
  std::vector<std::string_view> subprotocols_;
  std::vector<std::string_view> allowed_origins_;
  const OpenHandler* open_handler_ = nullptr;

  // Cross-thread: topics with news and frames for connections. A full
  // topic inbox sets `topics_overflowed_` and the loop checks every topic.
  io::MpscQueue<hub::TopicRecord*> topic_inbox_;
  io::MpscQueue<Command> command_inbox_;
  std::atomic<bool> topics_overflowed_{false};
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> room_made_{false};
  std::atomic<std::thread::id> owner_{};
  InboxTask inbox_task_{*this};
};

}  // namespace sluice::server
