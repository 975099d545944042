// Owns: ConnectionRef, a handle through which any thread may send to one
// WebSocket connection. The caller's thread encodes the whole frame into
// pool blocks and hands it to the connection's loop as one unit through a
// bounded queue: frames from concurrent senders can never interleave on
// the wire, no lock is held around the socket, and no buffer is allocated
// per message. Frames from one sending thread arrive in the order it sent
// them.
#pragma once

#include <cstdint>
#include <string_view>

namespace sluice::server {

class Worker;

enum class SendStatus : std::uint8_t {
  ok,         // queued for the connection's loop
  busy,       // the loop's queue is full: nothing was queued; try again
  no_memory,  // the pool had no blocks for the frame: nothing was queued
  invalid,    // an empty ref
};

class ConnectionRef {
 public:
  ConnectionRef() = default;
  ConnectionRef(Worker* worker, std::uint64_t id) : worker_(worker), id_(id) {}

  // Thread-safe. A connection that has closed by the time its loop takes
  // the frame does not get it; the loop counts such frames
  // (ServerStats::sends_to_closed).
  SendStatus send_text(std::string_view text) const { return send(text, true); }
  SendStatus send_binary(std::string_view bytes) const { return send(bytes, false); }

  [[nodiscard]] std::uint64_t id() const { return id_; }
  explicit operator bool() const { return worker_ != nullptr; }

 private:
  SendStatus send(std::string_view payload, bool text) const;

  Worker* worker_ = nullptr;
  std::uint64_t id_ = 0;
};

}  // namespace sluice::server
