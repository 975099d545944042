// Owns: ConnectionState, what a connection shares with the application's
// ConnectionRefs, which may outlive it and live on other threads: its id,
// whether it has closed, how to hand its loop a frame, and the
// application's data for it.
#pragma once

#include <atomic>
#include <cstdint>

#include "buf/frame.hpp"
#include "sluice/connection_ref.hpp"

namespace sluice::session {

// Hands a whole frame to the loop that owns connection `id` (the worker's
// inbox): for its HTTP/2 stream `stream`, or (0) for the connection
// itself. Any thread.
class FramePoster {
 public:
  [[nodiscard]] virtual server::SendStatus post(std::uint64_t id, std::int32_t stream, buf::FrameRef frame) = 0;
  // A name for a WebSocket the loop serves on one stream of an HTTP/2
  // connection, from the same sequence as the connections' own, so that
  // every ConnectionRef::id() is unique within the run. The loop's thread.
  [[nodiscard]] virtual std::uint64_t new_id() = 0;

 protected:
  ~FramePoster() = default;
};

struct ConnectionState {
  ConnectionState(FramePoster& poster_, buf::Pool& pool_, std::uint64_t id_) : poster(poster_), pool(pool_), id(id_) {}
  // A WebSocket on HTTP/2 stream `stream_` of connection `connection_`:
  // frames posted to it reach that stream.
  ConnectionState(FramePoster& poster_, buf::Pool& pool_, std::uint64_t id_, std::uint64_t connection_,
                  std::int32_t stream_)
      : poster(poster_), pool(pool_), id(id_), connection(connection_), stream(stream_) {}

  FramePoster& poster;
  buf::Pool& pool;
  const std::uint64_t id;
  const std::uint64_t connection = id;  // the connection the loop knows
  const std::int32_t stream = 0;        // its HTTP/2 stream; 0: the whole connection
  // Set (release) by the loop when the connection closes; a sender that
  // sees it (acquire) queues nothing.
  std::atomic<bool> closed{false};
  // The application's data: its loop's hooks and any thread's
  // ConnectionRef read and replace it.
  std::atomic<server::UserData> user;
};

}  // namespace sluice::session
