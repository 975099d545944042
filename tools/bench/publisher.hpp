// Owns: Publisher, the bench's HTTP publisher: POST /pub/{topic} on one
// keep-alive connection, many requests pipelined per write, each payload
// stamped with the time its batch was written. At most `window` requests
// are unanswered at any time, so the publisher never buries the server in
// more than it asked for; it paces itself to a target rate or runs flat
// out. Every reply is parsed: a non-2xx status is counted as refused.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "sluice/io/socket.hpp"

namespace sluice::bench {

struct PublisherOptions {
  io::Endpoint server;
  std::string topic = "bench";
  std::string event;              // ?event= name; empty: none
  std::size_t size = 64;          // payload bytes
  double rate = 0;                // requests/s; 0: as fast as replies come back
  std::size_t pipeline = 64;      // requests per write
  std::size_t window = 256;       // unanswered requests at most
  std::uint64_t max_events = 0;   // stop after this many replies; 0: until stop()
  // Closed loop (bulk): issue no more than `max_ahead` events beyond what
  // the reader has counted in `delivered`, so that the stream runs as fast
  // as it is read and never trips a server's slow-consumer policy.
  const std::atomic<std::uint64_t>* delivered = nullptr;
  std::uint64_t max_ahead = 0;
};

struct PublisherCounters {
  std::atomic<std::uint64_t> sent{0};
  std::atomic<std::uint64_t> accepted{0};  // 2xx replies
  std::atomic<std::uint64_t> refused{0};   // other replies (503 when the server is full)
};

class Publisher {
 public:
  explicit Publisher(const PublisherOptions& options);
  ~Publisher();
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  // Runs on the calling thread until max_events replies, stop(), an error,
  // or `deadline_ns`. Returns false on a connection or protocol error.
  bool run(std::uint64_t deadline_ns);
  // Runs run() on a thread of its own.
  void start(std::uint64_t deadline_ns);
  void stop();  // thread-safe; joins the thread start() made

  [[nodiscard]] const PublisherCounters& counters() const { return counters_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  bool connect();
  std::size_t batch_allowed(std::uint64_t now) const;
  void fill(std::size_t count, std::uint64_t now);
  bool flush();
  bool drain_replies();
  int poll_timeout(std::uint64_t now, std::uint64_t deadline) const;
  bool fail(const char* why);

  PublisherOptions options_;
  PublisherCounters counters_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int fd_ = -1;
  std::string request_;       // one request; the stamp sits at stamp_offset_
  std::size_t stamp_offset_ = 0;
  std::string out_;           // bytes waiting to be written
  std::size_t out_done_ = 0;
  std::string in_;            // reply bytes not parsed yet
  std::uint64_t issued_ = 0;
  std::uint64_t answered_ = 0;
  std::uint64_t started_ns_ = 0;
  std::string error_;
};

}  // namespace sluice::bench
