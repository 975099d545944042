// Owns: PacedReader, the slow consumer of slow-consumer: one SSE or
// WebSocket stream, over HTTP/1.1 or HTTP/2, in clear or over TLS, read on
// its own thread no faster than `drain_rate` events/s (the device's
// decode-and-paint loop), through a receive buffer of chosen size. Over
// TLS it takes one record at a time from the socket (no read-ahead), so
// that what it has not read stays in the kernel, as in clear. It
// records the age of every event it reads, per time slot, so a run shows
// whether the age stays bounded or grows without end.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "subscriber.hpp"
#include "io/socket.hpp"

namespace sluice::bench {

struct AgeSlot {
  double t = 0;              // seconds since the reader started, end of the slot
  std::uint64_t events = 0;  // read in this slot
  std::uint64_t gaps = 0;    // ids (SSE) or sequence numbers (WebSocket) skipped in this slot
  double mean_ms = 0;
  double max_ms = 0;
};

struct PacedReaderOptions {
  io::Endpoint server;
  std::string path;
  Proto proto = Proto::sse;
  double drain_rate = 20;          // events/s
  int receive_buffer = 0;          // SO_RCVBUF; 0: kernel default (autotuned)
  bool h2c = false;                // over HTTP/2 (H2cStream; by ALPN over TLS); WebSocket: extended CONNECT
  std::shared_ptr<const TlsClient> tls;  // set: over TLS
  std::uint64_t slot_ns = 250'000'000;
};

class PacedReader {
 public:
  explicit PacedReader(const PacedReaderOptions& options) : options_(options) {}
  ~PacedReader() { stop(); }
  PacedReader(const PacedReader&) = delete;
  PacedReader& operator=(const PacedReader&) = delete;

  // Connects and reads until stop() or the server closes. False when the
  // stream did not start.
  bool start();
  void stop();

  // Valid after stop().
  [[nodiscard]] const std::vector<AgeSlot>& slots() const { return slots_; }
  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] std::uint64_t notices() const { return notices_; }
  [[nodiscard]] std::uint64_t order_errors() const { return order_errors_; }
  [[nodiscard]] bool closed_by_server() const { return closed_by_server_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  class Handler;
  void run(std::string first);
  bool read_head(std::string& bytes, bool& head_done);

  PacedReaderOptions options_;
  int fd_ = -1;
  Channel channel_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<AgeSlot> slots_;
  std::uint64_t events_ = 0;
  std::uint64_t notices_ = 0;       // SSE comment blocks, and the server's notice events or messages
  std::uint64_t order_errors_ = 0;  // WebSocket: a sequence number repeated or stepped back
  bool closed_by_server_ = false;
  std::string error_;
};

}  // namespace sluice::bench
