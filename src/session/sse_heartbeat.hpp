// Owns: SseHeartbeat, one loop's SSE keep-alive. Every sse.heartbeat_ms it
// builds one comment frame and queues it, shared, on every SSE stream the
// loop serves, so that proxies and browsers keep a quiet stream open and a
// dead peer is found by the write that fails. One frame per beat, not one
// per stream: ten thousand streams cost one pool block.
#pragma once

#include <chrono>
#include <unordered_set>

#include "buf/pool.hpp"
#include "io/loop.hpp"

namespace sluice::session {

class SseStream;

class SseHeartbeat {
 public:
  SseHeartbeat(io::Loop& loop, buf::Pool& pool, std::chrono::milliseconds period);
  ~SseHeartbeat();
  SseHeartbeat(const SseHeartbeat&) = delete;
  SseHeartbeat& operator=(const SseHeartbeat&) = delete;

  // A stream joins the beat when it opens and leaves it when it closes.
  void add(SseStream* stream) { streams_.insert(stream); }
  void remove(SseStream* stream) { streams_.erase(stream); }
  // A reload's new sse.heartbeat_ms: the next beat is one new period away.
  void set_period(std::chrono::milliseconds period);

 private:
  void beat();

  io::Loop& loop_;
  buf::Pool& pool_;
  io::Loop::TimerId timer_;
  std::unordered_set<SseStream*> streams_;
};

}  // namespace sluice::session
