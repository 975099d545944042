// Owns: one round of the burst scenario in each of its two
// forms, and the probe that picks between them.
//
// replay: the K events are published first, into the server's topic
// history, and a new client then asks for everything after the first
// event's id (SSE: ?lastEventId=, WebSocket: Last-Event-ID on the
// upgrade): the server has all K for it at once, as when
// a dashboard loads. live: the client subscribes first and the K events are
// published in one pipelined write, so the server gets them as K separate
// publishes; a server without history can only do this.
#pragma once

#include <cstdint>
#include <string>

#include "runner.hpp"
#include "subscriber.hpp"

namespace sluice::bench {

struct BurstSetup {
  Proto proto = Proto::sse;  // the subscriber's protocol, in either mode
  std::size_t events = 1000;
  std::size_t size = 64;
  std::size_t rounds = 5;  // each on a topic of its own, whose history the server keeps
  double timeout = 20;     // seconds per round at most
};

struct Round {
  double first_ms = 0;   // publish write (live) or request (replay) to first event
  double last_ms = 0;    // the same to the K-th: how long the client waited for all
  double drain_ms = 0;   // first event to the K-th (0: all came in one read)
  double events_per_segment = 0;
  bool complete = false;
  std::string error;     // why an incomplete round failed, for the report
};

struct ReplaySupport {
  bool supported = false;
  std::string why_not;  // what the server did instead, when not supported
};

// Publishes two events to a fresh topic, subscribes after the first one's
// id, then publishes a third. A server that replays sends the second event
// first; one without history sends the third, or nothing that matches.
[[nodiscard]] ReplaySupport probe_replay(const BurstSetup& setup, const ServerUnderTest& sut);

[[nodiscard]] Round live_round(const BurstSetup& setup, const ServerUnderTest& sut, std::size_t index);
[[nodiscard]] Round replay_round(const BurstSetup& setup, const ServerUnderTest& sut, std::size_t index);

// The sluiced --set options whose limits hold and replay `rounds` bursts of
// `events` events of `size` bytes (history, send budget, and a pool that
// keeps every round's history), each at least sluiced's default.
[[nodiscard]] std::string replay_settings(const BurstSetup& setup);

}  // namespace sluice::bench
