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
// inbox). Any thread.
class FramePoster {
 public:
  [[nodiscard]] virtual server::SendStatus post(std::uint64_t id, buf::FrameRef frame) = 0;

 protected:
  ~FramePoster() = default;
};

struct ConnectionState {
  ConnectionState(FramePoster& poster_, buf::Pool& pool_, std::uint64_t id_) : poster(poster_), pool(pool_), id(id_) {}

  FramePoster& poster;
  buf::Pool& pool;
  const std::uint64_t id;
  // Set (release) by the loop when the connection closes; a sender that
  // sees it (acquire) queues nothing.
  std::atomic<bool> closed{false};
  // The application's data: its loop's hooks and any thread's
  // ConnectionRef read and replace it.
  std::atomic<server::UserData> user;
};

}  // namespace sluice::session
