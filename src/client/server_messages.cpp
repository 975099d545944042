#include "server_messages.hpp"

#include <limits>

namespace sluice::client::detail {

namespace {

// The message's size is bounded before it gets here (by max_event_bytes,
// through the WebSocket decoder or the SSE parser; an event's data again
// once read); the rest of the codec's limits keep their defaults.
proto::wsjson::Limits client_limits() {
  proto::wsjson::Limits limits;
  limits.max_message_bytes = std::numeric_limits<std::size_t>::max();
  limits.max_string_bytes = std::numeric_limits<std::size_t>::max();
  return limits;
}

}  // namespace

proto::wsjson::ReadResult ServerMessages::read(std::string_view text, proto::wsjson::Style style,
                                               proto::wsjson::ServerMessage& out) {
  if (scratch_.size() < text.size()) scratch_.resize(text.size());
  return proto::wsjson::read_server_message(text, style, client_limits(), scratch_, out);
}

}  // namespace sluice::client::detail
