#include "notice.hpp"

namespace sluice::client::detail {

EventKind kind_of_sse_event(std::string_view type) {
  if (type == kDroppedEventName) return EventKind::dropped;
  if (type == kResetEventName) return EventKind::reset;
  return EventKind::message;
}

void read_notice(ServerMessages& reader, Event& event) {
  event.id.clear();
  event.dropped = 0;
  proto::wsjson::ServerMessage notice;
  if (!reader.read(event.data, proto::wsjson::Style::bare, notice).ok()) return;
  if (!notice.topic.empty()) event.topic.assign(notice.topic);
  if (event.kind == EventKind::dropped) event.dropped = notice.dropped;
}

}  // namespace sluice::client::detail
