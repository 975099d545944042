// Owns: EventFrames, one event on its way to a loop's subscribers, in each
// wire format. The SSE form was encoded once by the publisher and is shared
// by every SSE subscriber of every loop; the WebSocket forms are built from
// the event's payload the first time a subscriber of this loop asks, then
// shared by every subscriber of the loop that speaks that form:
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

#include "buf/frame.hpp"
#include "hub/event_id.hpp"
#include "proto/ws_deflate.hpp"

namespace sluice::hub {

// Loop-owned tools the WebSocket forms are built with, reused event after
// event so that building allocates only while buffers grow.
struct FrameTools {
  buf::Pool& pool;
  proto::ws::Deflater& deflater;
  std::string& json;     // the /ws envelope
  std::string& payload;  // the event's payload made contiguous
};

class EventFrames {
 public:
  // `payload` is one byte of event-name length, the name, the data. All
  // references must outlive this object.
  // `prebuilt` holds forms the publisher already built (by WsForm index);
  // empty ones are built here on first use.
  EventFrames(FrameTools tools, std::string_view topic, std::string_view id, const buf::FrameRef& sse,
              const buf::FrameRef& payload, const buf::FrameRef* prebuilt = nullptr);

  [[nodiscard]] const buf::FrameRef& sse() const { return sse_; }
  [[nodiscard]] const buf::FrameRef& ws_message(bool deflated);
  [[nodiscard]] const buf::FrameRef& ws_json(bool deflated);
  // The form by WsForm index (history.hpp).
  [[nodiscard]] const buf::FrameRef& ws_form(int form);

 private:
  // A form whose build failed is not tried again for this event.
  struct Slot {
    buf::FrameRef frame;
    bool tried = false;
  };

  void load_payload();
  buf::FrameRef build_ws(std::string_view payload, bool text, bool deflated);
  std::string_view json_envelope();

  FrameTools tools_;
  std::string_view topic_;
  std::string_view id_;
  const buf::FrameRef& sse_;
  const buf::FrameRef& payload_;
  bool loaded_ = false;
  bool utf8_ = false;
  std::string_view event_;
  std::string_view data_;
  Slot ws_[2];
  Slot json_[2];
};

}  // namespace sluice::hub
