// Owns: ConnectionRef, the application's handle on one connection (send
// to it from any thread, learn that it closed, its data), and the hooks
// that hand one over (OpenHandler, CloseHandler).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace sluice::session {
struct ConnectionState;
}

namespace sluice::server {

// The application's own data for one connection: set it when the
// connection is authorized or opens, read it in every later hook and
// through a ConnectionRef. Freed when the connection and every
// ConnectionRef to it are gone.
using UserData = std::shared_ptr<void>;

enum class SendStatus : std::uint8_t {
  ok,         // queued for the connection's loop
  busy,       // the loop's queue is full: nothing was queued; try again
  no_memory,  // the pool had no blocks for the frame: nothing was queued
  closed,     // the connection has closed: nothing was queued, nothing will be
  invalid,    // an empty ref
};

// A handle through which any thread may send to one WebSocket connection
// and learn whether it is still open. The caller's thread encodes the whole
// frame into pool blocks and hands it to the connection's loop as one unit
// through a bounded queue: frames from concurrent senders never interleave
// on the wire, no lock is held around the socket, and no buffer is
// allocated per message. Frames from one sending thread arrive in the
// order it sent them.
//
// A ConnectionRef may be copied, kept and used from any thread while its
// Server exists. A frame sent while the connection closes is dropped by its
// loop and counted (ServerStats::sends_to_closed).
class ConnectionRef {
 public:
  ConnectionRef() = default;
  explicit ConnectionRef(std::shared_ptr<session::ConnectionState> state);

  SendStatus send_text(std::string_view text) const { return send(text, true); }
  SendStatus send_binary(std::string_view bytes) const { return send(bytes, false); }

  // True once the connection has closed (and for an empty ref).
  [[nodiscard]] bool closed() const;
  // The server's name for the connection, unique within one run.
  [[nodiscard]] std::uint64_t id() const;
  // The application's data for the connection (empty until set). Any
  // thread; it outlives the connection for as long as a ref holds it.
  [[nodiscard]] UserData user_data() const;
  // Replaces it. Any thread; the connection's later hooks see the new data.
  void set_user_data(UserData data) const;

  explicit operator bool() const { return state_ != nullptr; }

 private:
  SendStatus send(std::string_view payload, bool text) const;

  std::shared_ptr<session::ConnectionState> state_;
};

// A connection became a WebSocket on `path`.
using OpenHandler = std::function<void(ConnectionRef connection, std::string_view path)>;
// A connection on_open was called for has closed (closed() is true).
using CloseHandler = std::function<void(ConnectionRef connection)>;

}  // namespace sluice::server
