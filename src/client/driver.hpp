// Owns: Driver, the client's thread and its reconnect loop: run one
// connection (a Session), decide from how it ended whether to retry, wait
// out the back-off, and again, until stop() or a fatal error. It also holds
// what every session needs: the inbox, the wake-up, the interrupt flag.
//
// Threads: the session runs on the driver's thread only. start(), stop(),
// reconnect(), state(), last_error() and fill_stats() are safe from any
// thread; stop() joins, except when called on the driver's own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

#include "backoff.hpp"
#include "inbox.hpp"
#include "sluice/client/options.hpp"
#include "sluice/client/status.hpp"
#include "wake.hpp"

namespace sluice::client::detail {

class Driver;

class Session {
 public:
  // Runs one connection on the driver's thread: connect, open the stream,
  // read until it ends. Returns why it ended (never kind none). Must return
  // soon after driver.interrupt() is set (its Link sees the Wake).
  virtual ClientError run(Driver& driver) = 0;

 protected:
  ~Session() = default;
};

class Driver {
 public:
  explicit Driver(const ClientOptions& options);
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // Starts the thread. `session` must outlive it (until stop() returns).
  // Errors (fatal): resources, or a second start().
  [[nodiscard]] ClientError start(Session& session);
  void stop();
  // Gives up the current connection (or back-off) and connects again at once.
  void reconnect();

  [[nodiscard]] ClientState state() const { return state_.load(std::memory_order_acquire); }
  [[nodiscard]] ClientError last_error() const;
  void fill_stats(ClientStats& stats) const;
  [[nodiscard]] Inbox& inbox() { return inbox_; }

  // For sessions, on the driver's thread.
  [[nodiscard]] const ClientOptions& options() const { return options_; }
  [[nodiscard]] Wake& wake() { return wake_; }
  [[nodiscard]] const std::atomic<bool>& interrupt() const { return interrupt_; }
  [[nodiscard]] bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  void opened();                                       // the stream is open
  void set_retry(std::chrono::milliseconds base);      // the server's "retry:"
  void set_retry_after(std::chrono::milliseconds at_least);  // a Retry-After
  void add_bytes(std::size_t n) { bytes_read_.fetch_add(n, std::memory_order_relaxed); }

 private:
  void run(Session& session);
  [[nodiscard]] bool is_fatal(const ClientError& error) const;
  void pause(std::chrono::milliseconds delay);
  void report(ClientState state, const ClientError* error, std::chrono::milliseconds retry_in);
  void finish(ClientState state);
  [[nodiscard]] bool stream_proved_itself() const;

  const ClientOptions options_;
  Inbox inbox_;
  Wake wake_;
  Backoff backoff_;
  std::chrono::milliseconds retry_after_{0};
  std::uint32_t failed_attempts_ = 0;  // in a row, none of which opened a stream
  bool opened_ = false;                // the current attempt opened its stream
  std::chrono::steady_clock::time_point opened_at_;
  std::uint64_t pushed_at_open_ = 0;  // the inbox's count when the stream opened

  std::atomic<bool> stopping_{false};
  std::atomic<bool> interrupt_{false};  // stop() or reconnect(): leave the connection
  std::atomic<ClientState> state_{ClientState::stopped};
  std::atomic<std::uint64_t> connects_{0};
  std::atomic<std::uint64_t> bytes_read_{0};

  mutable std::mutex error_mutex_;
  ClientError last_error_;

  std::mutex thread_mutex_;  // start() and stop() from several threads
  std::thread thread_;
};

}  // namespace sluice::client::detail
