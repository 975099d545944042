// A subscriber that comes back: it names the last event it has
// (Last-Event-ID, which browsers send when they reconnect, or ?lastEventId=
// for a first connection), and gets what the history still has after it,
// through its policy like any event. When the history cannot say it has
// everything after that id, a sluice-reset notice goes first, for each of
// the connection's topics, with the reasons the server's own streams give:
// too-old (the history no longer reaches back that far), unknown-id (an id
// this server has not sent yet: the device restarted and its ids began
// again) and malformed-id.
#include <charconv>

#include "embedded/push_server.hpp"
#include "proto/url.hpp"

namespace sluice::embedded {

namespace {

std::string_view last_event_id(const proto::http1::Request& request) {
  std::string_view id = request.header("Last-Event-ID");
  proto::url::QueryIterator it(request.query);
  std::string_view key;
  std::string_view value;
  while (id.empty() && it.next(key, value)) {
    if (key == "lastEventId") id = value;
  }
  return id;
}

}  // namespace

void PushServer::resume(PushConnection& c, const proto::http1::Request& request) {
  const std::string_view text = last_event_id(request);
  if (text.empty()) return;
  std::uint64_t last = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), last);
  // The id is echoed as the number it parsed to: the client's own text is
  // neither trusted inside JSON nor bounded in length (leading zeros).
  char digits[21];
  std::string_view echoed(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, last).ptr - digits));
  std::string_view reason;
  if (error != std::errc{} || end != text.data() + text.size()) {
    reason = "malformed-id";
    echoed = {};
  } else if (last > last_id_) {
    reason = "unknown-id";
  } else if (last < history_.lost_through()) {
    reason = "too-old";
  }
  if (!reason.empty()) {
    for (std::size_t i = 0; i < c.topic_count_; ++i) {
      char fields[160];  // a 32-byte topic, the longest reason, a 20-digit id
      std::size_t n = 0;
      for (std::string_view part : {std::string_view("\"topic\":\""), c.topic(i), std::string_view("\",\"reason\":\""),
                                    reason, std::string_view("\",\"last_id\":\""), echoed, std::string_view("\"")}) {
        part.copy(fields + n, part.size());
        n += part.size();
      }
      if (!push_notice(c, "reset", std::string_view(fields, n))) {
        // No room to say what it missed: it must not read on past a gap it
        // was not told of. Cut off, it comes back with the same id.
        cut_off(c);
        return;
      }
    }
    if (reason != "too-old") return;  // nothing of this server's to replay
  }
  PublishReport ignored;
  for (std::size_t k = 0; k < history_.size() && c.subscribed(); ++k) {
    const HistoryRecord& record = history_.at(k);
    const int i = record.id > last ? c.find_topic(record.topic_name()) : -1;
    if (i < 0) continue;
    deliver(c, static_cast<std::size_t>(i), encode(c.phase_, record.event_data(), record.id), record.id, ignored);
  }
}

}  // namespace sluice::embedded
