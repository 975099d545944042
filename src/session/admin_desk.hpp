// Owns: AdminDesk, what the admin API (the routes of the admin listener)
// reads and does across the whole server: list topics, show one topic's
// kept events, close one connection, drain the node. The server implements
// it; a session on the admin listener reaches the other loops only through
// it. Reads take each topic's lock briefly, as the $sys snapshots do;
// actions are handed to the loops that own what they act on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::session {

class AdminDesk {
 public:
  // Appends {"topics":[...],"listed":N,"total":T,"next":...} to `out`:
  // at most `limit` topics whose names sort after `after` (empty: from the
  // first), in name order, with their subscribers, events published, events
  // kept, publish rate and the age of their newest event. "next" is the
  // cursor for the following page (the last name listed), null when the
  // listing is complete.
  virtual void write_topics(std::string& out, std::size_t limit, std::string_view after) const = 0;
  // Appends one topic's figures and at most `events` of its newest kept
  // events (id, age, size; never the data) to `out`; false, appending
  // nothing, when there is no such topic.
  [[nodiscard]] virtual bool write_topic(std::string& out, std::string_view topic, std::size_t events) const = 0;
  // Asks the loop that owns connection `id` to close it (a goodbye in its
  // protocol first, as at a shutdown). False when no connection `id` is
  // open (or its loop's inbox is full).
  [[nodiscard]] virtual bool close_connection(std::uint64_t id) = 0;
  // Connections are listed by the loops that own them, so a listing is
  // asked for and collected later: ask_connections() asks every loop for
  // its connections with ids above `after` and returns a ticket (0 while
  // another listing is under way); collect_connections() appends
  // {"connections":[...],"listed":N,"total":T,"next":...} to `out` once
  // every loop has answered, at most `limit` connections in id order, each
  // with its peer, transport, topics, queued bytes and age; false, appending
  // nothing, until then. A caller that stops waiting abandons its ticket.
  [[nodiscard]] virtual std::uint64_t ask_connections(std::size_t limit, std::uint64_t after) = 0;
  [[nodiscard]] virtual bool collect_connections(std::uint64_t ticket, std::string& out) = 0;
  virtual void abandon_connections(std::uint64_t ticket) = 0;
  // Stops accepting, ends every connection with a goodbye in its protocol,
  // and lets the server's run() return once they are gone or after
  // `grace` milliseconds (admin.drain_timeout_ms). Any thread.
  virtual void drain(std::int64_t grace_ms) = 0;

 protected:
  ~AdminDesk() = default;
};

}  // namespace sluice::session
