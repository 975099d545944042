// Owns: Event, what a client hands the application: a published event, or
// a notice from the server that events were dropped or that resuming failed,
// or (WebSocket) the answer to a request. The kind tells them apart.
#pragma once

#include <cstdint>
#include <string>

namespace sluice::client {

enum class EventKind : std::uint8_t {
  message,  // an event published on `topic`
  // The server dropped `dropped` events of `topic` under the subscriber's
  // policy; `data` holds the server's notice (JSON with topic, dropped,
  // first_id, last_id, policy).
  dropped,
  // The server could not resume from the id the client gave (too old, or
  // from another server epoch): events in between are lost and live events
  // follow. `data` holds the server's notice (JSON with topic and reason).
  reset,
  // WsClient only: the answer to request `req`; `ok` says whether it was
  // done, `type` names the request ("subscribe", "unsubscribe", "publish"),
  // `id` is a published event's id, `data` the server's error text.
  ack,
};

// Strings are reused: the clients swap Events in and out of their inboxes,
// so an application that keeps passing the same Event to next() lets the
// library run without allocating per event once the buffers have grown.
struct Event {
  EventKind kind = EventKind::message;
  std::string topic;  // empty for an SSE stream of several topics (the wire does not say)
  std::string id;     // opaque; empty when the server gave none
  std::string type;   // the event name; "message" when the publisher named none
  std::string data;
  bool binary = false;            // WebSocket: it arrived as a binary message
  std::uint64_t dropped = 0;      // dropped: how many events the server dropped
  std::uint64_t overwritten = 0;  // Delivery::latest: unread older values this one replaced
  std::uint64_t req = 0;          // ack: the request it answers
  bool ok = true;                 // ack: whether the request succeeded
};

}  // namespace sluice::client
