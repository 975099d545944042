#include "notice.hpp"

namespace sluice::client::detail {

EventKind kind_of_sse_event(std::string_view type) {
  if (type == kDroppedEventName) return EventKind::dropped;
  if (type == kResetEventName) return EventKind::reset;
  return EventKind::message;
}

void read_notice(JsonObject& json, Event& event) {
  event.id.clear();
  event.dropped = 0;
  if (!json.parse(event.data)) return;
  if (const std::string_view topic = json.get("topic"); !topic.empty()) event.topic.assign(topic);
  if (event.kind == EventKind::dropped && !json.get_u64("dropped", event.dropped)) event.dropped = 0;
}

}  // namespace sluice::client::detail
