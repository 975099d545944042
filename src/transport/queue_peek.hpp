// Owns: reading an OutQueue's bytes in wire order without taking them, and
// then taking exactly as many as went out. HTTP/2 needs both: a DATA frame
// carries a stream's next bytes by reference (no copy) in the connection's
// gather list, and the stream's queue lets go of them only once the
// transport has taken them, a frame released as soon as its last byte is.
//
// Both go through OutQueue::flush() with writers of their own, so the
// queue's order (the frame in flight, control frames, then data) and its
// accounting are the ones every flush uses: a peek is a flush whose writer
// takes nothing, a take is a flush whose writer takes `n` bytes. The
// iovecs a peek returns stay valid until the queue is next changed.
#pragma once

#include <sys/uio.h>

#include <cstddef>

#include "conn/out_queue.hpp"

namespace sluice::transport {

struct Peeked {
  int count = 0;          // iovecs filled
  std::size_t bytes = 0;  // bytes they cover
};

// Fills `iov` (at most `max_iov` entries) with the queue's bytes from
// `skip` bytes in, covering at most `max_bytes`, and of the data frames
// only those `allowance` lets a flush start (counted from the front of the
// queue). Never changes the queue (beyond completing empty frames at its
// front, which hold no bytes).
[[nodiscard]] Peeked peek(conn::OutQueue& queue, std::size_t skip, std::size_t max_bytes, struct iovec* iov,
                          int max_iov, conn::DataAllowance allowance = {});

// The queue's bytes available to peek from `skip` on, counted over at most
// `max_iov` iovecs (the most one gather can hold).
[[nodiscard]] std::size_t peekable(conn::OutQueue& queue, std::size_t skip, std::size_t max_bytes, int max_iov,
                                   conn::DataAllowance allowance = {});

// Takes the first `bytes` of the queue, as a flush that wrote them would.
// Returns the bytes taken (fewer only when the queue held fewer).
std::size_t take(conn::OutQueue& queue, std::size_t bytes);

// Copies `bytes` of the queue, from `skip` in, to `out`. Returns the bytes
// copied.
std::size_t copy_out(conn::OutQueue& queue, std::size_t skip, std::size_t bytes, char* out);

}  // namespace sluice::transport
