// Owns: LoopMetrics, every counter, gauge and histogram one event loop keeps
// about its own work, and the label sets and bucket bounds they use.
//
// A loop updates only its own LoopMetrics, on its own thread, with plain
// relaxed stores (metrics/cells.hpp): no lock, no shared cache line with
// another loop (the struct is cache-line aligned), no allocation. A scrape
// adds every loop's values (metrics/registry.hpp) and writes them out
// (metrics/scrape.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "metrics/cells.hpp"
#include "metrics/histogram.hpp"

namespace sluice::metrics {

// What a connection carries now. Streams come first: the per-stream
// families are sized by kStreamTransports and have no "http" series.
enum class Transport : std::uint8_t { sse, ws, http };
inline constexpr std::array<std::string_view, 3> kTransportLabels{"sse", "ws", "http"};
inline constexpr std::size_t kStreamTransports = 2;

// Slow-consumer policies, indexed by the policy's ordinal in the server's
// enum (tests/metrics/loop_metrics_test.cpp holds the two lists equal).
inline constexpr std::array<std::string_view, 5> kPolicyLabels{"fifo", "drop-oldest", "drop-newest", "latest",
                                                               "disconnect"};

// Why a publish was refused with 503 (the publisher may retry).
// `broker`: Redis did not take the event (unreachable, too many waiting,
// refused, or no answer in time), told apart from a loop behind (`busy`).
enum class Refusal : std::uint8_t { no_memory, busy, too_many_topics, broker };
inline constexpr std::array<std::string_view, 4> kRefusalLabels{"no_memory", "busy", "too_many_topics", "broker"};

// Why a `latest` stream's frames are not held to policy.latest_window_frames
// (session/latest_window.hpp): its kernel tells nothing of the reader, or
// the reader's window moves in steps larger than the frames and the stream
// has no way to ask the reader what it has read.
enum class LooseBound : std::uint8_t { no_kernel_facts, window_steps };
inline constexpr std::array<std::string_view, 2> kLooseBoundLabels{"no_kernel_facts", "window_steps"};

// What the token authorizer (auth.mode=jwt) made of a request's token:
// checked (signature and claims) and accepted; taken without a check as
// the token its connection's last request proved; refused (unreadable,
// or its check failed).
enum class TokenOutcome : std::uint8_t { verified, reused, refused };
inline constexpr std::array<std::string_view, 3> kTokenOutcomeLabels{"verified", "reused", "refused"};

// Data frames in one writev: powers of two up to the iovec batch.
inline constexpr std::array<std::uint64_t, 11> kWritevEventBounds{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
// Microseconds from publish to the write that carried the event: from a
// loopback hop (tens of microseconds) to a consumer seconds behind.
inline constexpr std::array<std::uint64_t, 19> kEventAgeMicrosBounds{
    10,     25,     50,     100,     250,     500,     1000,    2500,    5000,    10000,
    25000,  50000,  100000, 250000,  500000,  1000000, 2500000, 5000000, 10000000};
// Data frames waiting in a connection's queue when it flushes, up to the
// default send.budget_frames.
inline constexpr std::array<std::uint64_t, 14> kQueueDepthBounds{0,  1,   2,   4,   8,    16,   32,
                                                                 64, 128, 256, 512, 1024, 2048, 4096};

struct alignas(64) LoopMetrics {
  // Connections, by what they carry now: a connection counts as http until
  // its request becomes a stream, then moves to sse or ws.
  std::array<Gauge, kTransportLabels.size()> connections;
  Counter connections_accepted;
  Counter connections_refused;  // past max_connections: 503, then closed
  Gauge subscribers;            // topic subscriptions of open streams

  Counter events_published;
  std::array<Counter, kStreamTransports> events_delivered;  // handed to a subscriber's queue
  std::array<Counter, kPolicyLabels.size()> events_dropped;
  Counter events_conflated;  // replaced by a newer event of the same key (latest)
  std::array<Counter, kLooseBoundLabels.size()> latest_loose;  // latest streams not held to the window, by LooseBound
  Counter latest_padding_bytes;  // padding queued to latest readers (conn/latency_gate.hpp)
  std::array<Counter, kPolicyLabels.size()> slow_consumer_cutoffs;
  Counter streams_shed;  // cut off while queued data held the pool (server/pool_shedding.hpp)
  std::array<Counter, kRefusalLabels.size()> publish_refusals;
  Counter publishes_held;   // WebSocket publisher messages held until there was room
  Counter protocol_errors;  // WebSockets closed with 1002, 1007 or 1009
  Counter sends_to_closed;  // frames sent through a ConnectionRef after its connection went
  Counter memory_closes;    // connections closed for want of room for their transport's buffers
  std::array<Counter, kTokenOutcomeLabels.size()> tokens;  // by TokenOutcome
  Gauge broker_unusable;          // 1 while this loop cannot use one of its Redis instances
  Counter broker_link_failures;   // connections to Redis that failed or were lost
  Counter broker_unusable_entries;  // stream entries passed over as unusable here

  Histogram<kWritevEventBounds> writev_events;
  Histogram<kEventAgeMicrosBounds> event_age_at_flush_us;
  Histogram<kQueueDepthBounds> queue_depth;

  Gauge& connections_of(Transport t) { return connections[static_cast<std::size_t>(t)]; }
  const Gauge& connections_of(Transport t) const { return connections[static_cast<std::size_t>(t)]; }
  Counter& delivered_to(Transport t) { return events_delivered[static_cast<std::size_t>(t)]; }
  Counter& refused(Refusal r) { return publish_refusals[static_cast<std::size_t>(r)]; }
  Counter& loose(LooseBound why) { return latest_loose[static_cast<std::size_t>(why)]; }
  Counter& token(TokenOutcome o) { return tokens[static_cast<std::size_t>(o)]; }
};

}  // namespace sluice::metrics
