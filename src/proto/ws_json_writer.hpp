// Owns: writing every message of the /ws JSON protocol (ws_json.hpp) into
// a buf::Sink: the server's events, acks and notices, and the client's
// requests. Members come in a fixed order with no whitespace, strings are
// escaped by json::write_string(), so whatever a writer writes, the
// matching reader reads back to the same values. Nothing allocates; each
// writer returns the sink's answer (false: it ran out of room).
#pragma once

#include <cstdint>
#include <string_view>

#include "proto/ws_json.hpp"
#include "buf/sink.hpp"

namespace sluice::proto::wsjson {

// One event: {"op":"event","topic":T,"id":I,"event":E,"data":D}, without
// "event" when it has no name. Data that is not UTF-8 cannot be a JSON
// string: it goes as "data_b64" (base64, RFC 4648 §4, padded) instead of
// "data". The caller says which; text data with bytes that are not UTF-8
// would have them replaced (see json_string.hpp).
struct Event {
  std::string_view topic;
  std::string_view id;
  std::string_view event;
  std::string_view data;
  bool binary = false;  // data goes as data_b64
};
[[nodiscard]] bool write_event(buf::Sink& out, const Event& event);

// Whether `data` must go as base64: it is not UTF-8.
[[nodiscard]] bool needs_base64(std::string_view data);

// The answer to one request:
//   {"op":"ack","req":R,"ok":true,"id":I,"last_id":L}  id: a publish's event id,
//                                                      last_id: a subscribe's topic's newest id
//   {"op":"ack","req":R,"ok":false,"error":E}
// R is the request's req as the client wrote it, null when it had none (or
// when the request could not be read far enough to find it). "id" and
// "last_id" are left out when empty.
struct Ack {
  Req req;
  bool ok = true;
  std::string_view id;
  std::string_view last_id;
  std::string_view error;
};
[[nodiscard]] bool write_ack(buf::Sink& out, const Ack& ack);

// Events of `topic` from first_id to last_id (`count` of them) were
// dropped under `policy`:
//   {"op":"dropped","topic":T,"dropped":N,"first_id":F,"last_id":L,"policy":P}
// The kind member is "op" (Style::json_protocol), "sluice" (raw_topic), or
// absent (bare, the data of an SSE sluice-dropped event).
struct Dropped {
  std::string_view topic;
  std::uint64_t count = 0;
  std::string_view first_id;
  std::string_view last_id;
  std::string_view policy;
};
[[nodiscard]] bool write_dropped(buf::Sink& out, Style style, const Dropped& notice);

// A subscription asked to resume after `last_id` and could not (`reason`:
// malformed-id, other-epoch, unknown-id, too-old); live events follow:
//   {"op":"reset","topic":T,"reason":R,"last_id":L}
// The kind member as for write_dropped().
struct Reset {
  std::string_view topic;
  std::string_view reason;
  std::string_view last_id;
};
[[nodiscard]] bool write_reset(buf::Sink& out, Style style, const Reset& notice);

// A client's request: {"op":OP,"topic":T, ...,"token":K,"req":R}, with
// "since" and "policy" for a subscribe, "data", "event" and "key" for a
// publish ("data" always, the others when not empty), "token" when not
// empty and "req" when present. A refresh names its topic only when it
// has one (it needs none).
[[nodiscard]] bool write_request(buf::Sink& out, const Request& request);

}  // namespace sluice::proto::wsjson
