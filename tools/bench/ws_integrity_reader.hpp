// Owns: WsIntegrityReader, the one subscriber of concurrent-send:
// a WebSocket on its own thread that checks every message it reads. A
// message is intact when the scanner found a well-formed text frame whose
// payload has exactly the expected size, a valid stamp, a publisher index
// below the publisher count, a sequence number from 1 to the per-publisher
// count, and that publisher's filler (stamp.hpp): two senders' bytes
// interleaved in one frame, or a frame cut short, fail one of these. Intact
// messages are then checked for each publisher's order: a number below the
// highest seen is reordered, one seen before a duplicate.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "histogram.hpp"
#include "sequence_tracker.hpp"
#include "io/socket.hpp"
#include "ws_frame_scanner.hpp"

namespace sluice::bench {

struct IntegrityOptions {
  io::Endpoint server;
  std::string path;
  std::size_t size = 64;            // payload bytes of every message
  std::uint32_t publishers = 100;   // valid indexes: 0..publishers-1
  std::uint64_t per_publisher = 100;  // valid sequence numbers: 1..per_publisher
};

struct IntegrityCounts {
  std::uint64_t delivered = 0;   // messages read
  std::uint64_t intact = 0;      // well-formed, first time seen
  std::uint64_t reordered = 0;   // intact, but below that publisher's highest so far
  std::uint64_t duplicates = 0;  // intact, seen before
  std::uint64_t corrupted = 0;   // not intact
  std::uint64_t first_ns = 0;    // now_ns() of the first and last message read
  std::uint64_t last_ns = 0;
};

class WsIntegrityReader final : private WsFrameHandler {
 public:
  explicit WsIntegrityReader(const IntegrityOptions& options);
  ~WsIntegrityReader() { stop(); }
  WsIntegrityReader(const WsIntegrityReader&) = delete;
  WsIntegrityReader& operator=(const WsIntegrityReader&) = delete;

  // Connects and starts the thread. False (see error()) when the upgrade failed.
  bool start();
  void stop();

  // Thread-safe: messages read so far.
  [[nodiscard]] std::uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  // Valid after stop().
  [[nodiscard]] const IntegrityCounts& counts() const { return counts_; }
  [[nodiscard]] const Histogram& latency() const { return latency_; }
  // The first corrupt payload, cut to 80 bytes, for the report.
  [[nodiscard]] const std::string& first_corrupt() const { return first_corrupt_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  void run();
  void on_message(bool text, std::string_view payload) override;
  void on_ping(std::string_view payload) override;
  void on_close(std::uint16_t code, std::string_view reason) override;
  [[nodiscard]] bool intact(bool text, std::string_view payload, std::uint32_t& index, std::uint64_t& seq) const;
  void corrupt(std::string_view payload);

  IntegrityOptions options_;
  int fd_ = -1;
  std::string first_bytes_;  // frames that came with the 101
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::atomic<std::uint64_t> delivered_{0};
  WsFrameScanner scanner_;
  SequenceTracker order_;
  std::vector<bool> seen_;   // publishers x per_publisher
  std::string replies_;
  std::uint64_t now_ = 0;
  IntegrityCounts counts_;
  Histogram latency_;
  std::string first_corrupt_;
  std::string error_;
};

}  // namespace sluice::bench
