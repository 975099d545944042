#include "server/admin_view.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "buf/string_sink.hpp"
#include "hub/event_id.hpp"
#include "proto/json_string.hpp"

namespace sluice::server {

namespace {

using Clock = std::chrono::steady_clock;

// The window a topic's publish rate is counted over.
constexpr Clock::duration kRateWindow = std::chrono::seconds(10);

// One topic's figures, copied out under its lock.
struct TopicRow {
  std::string name;
  std::size_t subscribers = 0;
  std::uint64_t published = 0;
  std::size_t kept = 0;
  double rate = 0;  // events per second over the last kRateWindow
  Clock::time_point last_publish{};
};

// Events per second over the last kRateWindow, from the publish times of
// what the topic keeps (in publish order: a binary search finds the
// window's first). When the history does not reach back that far and has
// let events go, it is counted over the time it does span instead.
double publish_rate(const hub::History& history, std::uint64_t published, Clock::time_point now) {
  if (history.empty()) return 0;
  const Clock::time_point since = now - kRateWindow;
  std::size_t low = 0;
  std::size_t high = history.size();
  while (low < high) {
    const std::size_t mid = low + (high - low) / 2;
    if (history.at(mid).published < since) low = mid + 1; else high = mid;
  }
  const std::size_t in_window = history.size() - low;
  const bool spans_window = low > 0 || published == history.size();
  const double seconds = spans_window ? std::chrono::duration<double>(kRateWindow).count()
                                      : std::chrono::duration<double>(now - history.at(0).published).count();
  return static_cast<double>(in_window) / std::max(seconds, 0.001);
}

TopicRow row_of(const hub::TopicView& view, Clock::time_point now) {
  return {std::string(view.name), view.subscribers, view.published, view.history.size(),
          publish_rate(view.history, view.published, now), view.last_publish};
}

std::int64_t age_ms(Clock::time_point now, Clock::time_point then) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - then).count();
}

// The topic's figures as JSON members (no braces).
void append_figures(std::string& out, const TopicRow& row, Clock::time_point now) {
  buf::StringSink sink(out);
  out += "\"topic\":";
  (void)proto::json::write_string(sink, row.name);
  char text[192];
  const int n = std::snprintf(text, sizeof text,
                              ",\"subscribers\":%zu,\"published\":%" PRIu64 ",\"kept\":%zu,\"publish_rate\":%.3f",
                              row.subscribers, row.published, row.kept, row.rate);
  out.append(text, static_cast<std::size_t>(n));
  if (row.published > 0) out += ",\"last_publish_age_ms\":" + std::to_string(age_ms(now, row.last_publish));
}

}  // namespace

// Only the page is kept, never every topic: rows past `limit` are cut back
// whenever twice as many have gathered, so a node with a million topics
// answers with memory for 2 x limit rows.
void AdminView::write_topics(std::string& out, std::size_t limit, std::string_view after) const {
  std::vector<TopicRow> rows;
  rows.reserve(2 * limit + 1);
  std::size_t total = 0;
  std::size_t following = 0;  // topics after `after`, listed or not
  const auto by_name = [](const TopicRow& a, const TopicRow& b) { return a.name < b.name; };
  const auto keep_first = [&] {
    std::nth_element(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(limit), rows.end(), by_name);
    rows.resize(limit);
  };
  // Under each topic's lock only the row is copied (its name, as the $sys
  // sample copies it) into room reserved beforehand; the cut moves rows.
  const Clock::time_point now = Clock::now();
  book_.inspect_topics([&](const hub::TopicView& view) {
    ++total;
    if (!after.empty() && view.name <= after) return;
    ++following;
    if (rows.size() == 2 * limit) keep_first();
    rows.push_back(row_of(view, now));
  });
  if (rows.size() > limit) keep_first();
  std::sort(rows.begin(), rows.end(), by_name);
  out += "{\"topics\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += i == 0 ? "{" : ",{";
    append_figures(out, rows[i], now);
    out += '}';
  }
  out += "],\"listed\":" + std::to_string(rows.size()) + ",\"total\":" + std::to_string(total) + ",\"next\":";
  if (following > rows.size() && !rows.empty()) {
    buf::StringSink sink(out);
    (void)proto::json::write_string(sink, rows.back().name);
  } else {
    out += "null";
  }
  out += "}\n";
}

bool AdminView::write_topic(std::string& out, std::string_view topic, std::size_t shown_at_most) const {
  struct Kept {
    std::uint64_t seq;
    Clock::time_point published;
    std::size_t bytes;  // the event's data, without its name
  };
  std::vector<Kept> events;
  events.reserve(shown_at_most);  // nothing is allocated under the lock
  TopicRow row;
  const Clock::time_point now = Clock::now();
  const bool found = book_.inspect_topic(topic, [&](const hub::TopicView& view) {
    row.subscribers = view.subscribers;
    row.published = view.published;
    row.kept = view.history.size();
    row.rate = publish_rate(view.history, view.published, now);
    row.last_publish = view.last_publish;
    const std::size_t first = row.kept > shown_at_most ? row.kept - shown_at_most : 0;
    for (std::size_t i = first; i < row.kept; ++i) {
      const hub::KeptEvent& e = view.history.at(i);
      events.push_back({e.seq, e.published, e.data_size()});
    }
  });
  if (!found) return false;
  row.name = std::string(topic);
  out += '{';
  append_figures(out, row, now);
  out += ",\"events\":[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    char id[hub::kMaxIdText];
    const std::size_t id_length = book_.format_id(events[i].seq, id);
    char text[64 + hub::kMaxIdText];
    const int n = std::snprintf(text, sizeof text, "%s{\"id\":\"%.*s\",\"age_ms\":%lld,\"bytes\":%zu}",
                                i == 0 ? "" : ",", static_cast<int>(id_length), id,
                                static_cast<long long>(age_ms(now, events[i].published)), events[i].bytes);
    out.append(text, static_cast<std::size_t>(n));
  }
  out += "],\"shown\":" + std::to_string(events.size()) +
         ",\"truncated\":" + (row.kept > events.size() ? "true" : "false") + "}\n";
  return true;
}

bool AdminView::close_connection(std::uint64_t id) {
  // Loop i of n gives the ids i+1, i+1+n, ... (Worker).
  if (id == 0 || workers_.empty()) return false;
  Worker& owner = *workers_[(id - 1) % workers_.size()];
  return owner.has_connection(id) && owner.close_later(id);
}

std::uint64_t AdminView::ask_connections(std::size_t limit, std::uint64_t after) {
  const std::uint64_t ticket = listing_.begin(limit, after, workers_.size());
  if (ticket == 0) return 0;
  // A loop whose inbox is full is not waited for: it lists nothing.
  for (const auto& worker : workers_) {
    if (!worker->list_later(ticket)) listing_.loop_done(ticket);
  }
  return ticket;
}

bool AdminView::collect_connections(std::uint64_t ticket, std::string& out) { return listing_.collect(ticket, out); }

void AdminView::drain(std::int64_t grace_ms) {
  const std::chrono::milliseconds grace(grace_ms);
  for (const auto& worker : workers_) worker->drain(grace);
}

}  // namespace sluice::server
