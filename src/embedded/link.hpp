// Owns: Link, the seam between the push server core and a callback TCP
// stack (lwIP's raw API, or any stack that calls back on input, on
// acknowledged bytes and on a timer). The core never calls the stack: it
// queues frames in the link's OutQueue, reads the link's input, and asks
// for a flush or a close; the stack's side moves the bytes when it can.
// embedded/lwip/push_listener.hpp is the lwIP side.
#pragma once

#include <cstddef>
#include <string_view>

#include "conn/out_queue.hpp"

namespace sluice::embedded {

class Link {
 public:
  // What waits to go out to the peer; the link drains it into the stack.
  [[nodiscard]] virtual conn::OutQueue& out() = 0;

  // Bytes received and not yet consumed, oldest first, and how many the
  // link can hold at most: a request head must fit in that many.
  [[nodiscard]] virtual std::string_view input() const = 0;
  [[nodiscard]] virtual std::size_t input_capacity() const = 0;
  // The first `n` bytes of input() are done with (the stack's receive
  // window opens by as much).
  virtual void consume(std::size_t n) = 0;
  // The peer sent its FIN: nothing more will arrive.
  [[nodiscard]] virtual bool input_closed() const = 0;

  // Hands the stack what the queue holds, as far as it has room; the rest
  // follows as the peer acknowledges.
  virtual void flush() = 0;
  // Sends what is queued, then ends the connection. The link reports the
  // end to the server (PushServer::closed), possibly from inside this call.
  virtual void close() = 0;
  // Ends the connection now, dropping what is still queued (a reset, on
  // TCP). The link reports the end (PushServer::closed) before it returns.
  virtual void abort() = 0;

 protected:
  ~Link() = default;
};

}  // namespace sluice::embedded
