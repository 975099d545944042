// Owns: EventFrames, one published event and its wire encodings. Each
// encoding is built the first time a subscriber asks for it and then shared
// by every subscriber that speaks the same format: an event is encoded once
// per wire format, never once per subscriber (seed 002).
//
//   sse()            the Server-Sent Events record
//   ws_message(z)    one WebSocket message holding the data: text when it is
//                    UTF-8, binary otherwise (GET /ws/{topic})
//   ws_json(z)       the /ws envelope {"op":"event","topic",...,"data"}
// z selects the permessage-deflate form, compressed once without context
// takeover so that every subscriber can share it.
//
// An empty FrameRef means the pool refused the blocks: the subscriber
// counts that event as dropped and says so.
#pragma once

#include <string>
#include <string_view>

#include "sluice/buf/frame.hpp"
#include "sluice/proto/ws_deflate.hpp"

namespace sluice::hub {

struct EventText {
  std::string_view topic;
  std::string_view id;     // "EPOCH:SEQ"
  std::string_view event;  // SSE event type; empty: "message"
  std::string_view data;
};

class EventFrames {
 public:
  // Everything passed must outlive this object. `scratch` is a buffer the
  // caller reuses across events, so building the JSON form allocates only
  // while it grows to the largest event seen.
  EventFrames(buf::Pool& pool, proto::ws::Deflater& deflater, std::string& scratch, const EventText& text)
      : pool_(pool), deflater_(deflater), scratch_(scratch), text_(text) {}

  [[nodiscard]] const buf::FrameRef& sse();
  [[nodiscard]] const buf::FrameRef& ws_message(bool deflated);
  [[nodiscard]] const buf::FrameRef& ws_json(bool deflated);
  [[nodiscard]] const EventText& text() const { return text_; }
  // Forgets every form built or refused, so the next call builds again
  // (after the caller made room in the pool).
  void forget();

 private:
  // A form whose build failed is not tried again for this event.
  struct Slot {
    buf::FrameRef frame;
    bool tried = false;
  };

  buf::FrameRef build_sse();
  buf::FrameRef build_ws(std::string_view payload, bool text, bool deflated);
  std::string_view json_envelope();

  buf::Pool& pool_;
  proto::ws::Deflater& deflater_;
  std::string& scratch_;
  EventText text_;
  Slot sse_;
  Slot ws_[2];
  Slot json_[2];
  int utf8_ = -1;  // the data is UTF-8: -1 not yet known
};

}  // namespace sluice::hub
