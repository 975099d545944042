// Owns: the settings both clients share (how events reach the application,
// reconnect timing, limits) and the counters they expose.
//
// The socket is read on the client's own thread, so a slow application
// never stalls the reader: bytes that stayed in the kernel's buffers would
// let the server's view of this client drift seconds behind, where no
// policy can drop or conflate them any more. What the reader does with an event
// the application has not taken yet is the Delivery choice:
// - queue: a bounded, lossless FIFO. When it is full the reader stops
//   reading, TCP pushes back on the server, and the server's policy for
//   this subscriber decides (a fifo subscriber is cut off and resumes from
//   its last id). Nothing grows without bound and nothing is lost silently.
// - latest: one slot per key (default: the topic) that always holds the
//   newest message; an unread older one is overwritten and counted in
//   Event::overwritten. The reader never waits on the application, except
//   when every one of latest_slots keys holds an unread value. Notices
//   (dropped, reset, ack) are never overwritten: they wait in the queue,
//   which next() empties first.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sluice/client/event.hpp"
#include "sluice/client/status.hpp"

namespace sluice::client {

enum class Delivery : std::uint8_t { queue, latest };

// https:// and wss://: whom to trust. The server's certificate chain and
// its name (or IP address) are checked unless `insecure` says otherwise.
struct TlsOptions {
  std::string ca_file;    // PEM CAs to trust; empty: the system's
  bool insecure = false;  // skip every check (tests, a server of your own): never the default
};

// Whether an SSE stream may use HTTP/2, where many streams share one
// connection. WebSocket and publishing always use HTTP/1.1.
enum class Http2 : std::uint8_t {
  off,              // HTTP/1.1 only
  alpn,             // HTTP/2 over TLS when the server offers it (ALPN h2), else HTTP/1.1
  prior_knowledge,  // also on http://: HTTP/2 from the first byte (h2c), for a server known to speak it
};

struct ReconnectOptions {
  // The base delay until the server names one with an SSE "retry:" field
  // (a server's is taken as at least 50 ms; this one as it is).
  // Each consecutive failure doubles it (from at least 50 ms), up to
  // max_delay; a stream that opened counts as a failure here unless it gave
  // an event or lasted a second. The delay used is
  // drawn at random from its upper half, so that clients cut off together
  // do not come back together. A 503's Retry-After is waited at least.
  std::chrono::milliseconds initial_delay{1000};
  std::chrono::milliseconds max_delay{30000};
  // Consecutive connection attempts that may fail to open a stream before
  // the client gives up with a fatal error (1: never retry); 0: no limit.
  std::uint32_t max_attempts = 0;
};

struct ClientOptions {
  Delivery delivery = Delivery::queue;
  std::size_t queue_events = 1024;             // events the queue holds at most
  std::size_t queue_bytes = std::size_t{8} << 20;  // bytes of those events (data, id, topic, type)
  std::size_t latest_slots = 1024;             // latest: distinct keys kept at most
  // latest: the key an event's slot is chosen by; the view must point into
  // the event or be static. Called on the client's thread. Empty: the topic.
  std::function<std::string_view(const Event&)> latest_key;

  // An event's data, an SSE line, a /ws/{topic} message; a /ws message (the
  // data as escaped JSON) may be six times this and its topic, id and name.
  std::size_t max_event_bytes = std::size_t{1} << 20;
  std::chrono::milliseconds connect_timeout{10000};    // the TCP connect and the response head
  std::chrono::milliseconds idle_timeout{45000};       // three missed 15 s heartbeats; 0: none
  int receive_buffer = 0;  // SO_RCVBUF for the socket; 0 leaves the kernel's (auto-tuned) default
  TlsOptions tls;
  Http2 http2 = Http2::alpn;
  ReconnectOptions reconnect;
  // Credentials for a server with auth on. Called on the client's thread
  // before each connection: a non-empty answer is sent as
  // "Authorization: Bearer TOKEN" (SSE over HTTP/1.1 and HTTP/2, WebSocket).
  // On a ws://HOST/ws connection it is called again `refresh_before` ahead
  // of the token's expiry (its JWT "exp" claim, read, not verified), and a
  // token that differs is sent in {"op":"refresh"}: the connection and its
  // subscriptions live on instead of being closed 4401 at the old token's
  // expiry. While it gives back the same token it is asked again each
  // second. It must return quickly; the answer is never logged. A token
  // holding a control character (CR, LF: it would end the header) is not
  // sent: the client stops with bad_token.
  std::function<std::string()> token;
  std::chrono::milliseconds refresh_before{10000};
  // Called on the client's thread at each change of state. It must return
  // quickly and must not call stop() or destroy the client (that would wait
  // for the thread it runs on).
  std::function<void(const StatusReport&)> on_status;
};

enum class NextStatus : std::uint8_t {
  event,    // `out` holds the next event
  timeout,  // none arrived within the wait
  ended,    // the client has stopped or failed and every received event was taken
};

struct ClientStats {
  std::uint64_t connects = 0;     // streams opened (200 or 101 read)
  std::uint64_t events = 0;       // events the reader handed to the inbox
  std::uint64_t taken = 0;        // events the application took with next()
  std::uint64_t overwritten = 0;  // latest: unread values replaced by newer ones
  std::uint64_t bytes_read = 0;   // from sockets, heads included
  std::uint64_t reader_waits = 0;  // times the reader stopped reading because the inbox was full
  bool reader_waiting = false;     // the reader is stopped on a full inbox right now
  std::size_t queued = 0;          // events waiting in the queue and slots
  std::size_t queued_bytes = 0;
};

}  // namespace sluice::client
