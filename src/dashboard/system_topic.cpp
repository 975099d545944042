#include "dashboard/system_topic.hpp"

#include <algorithm>
#include <charconv>
#include <concepts>

#include "buf/string_sink.hpp"
#include "proto/json_string.hpp"

namespace sluice::dashboard {

namespace {

using metrics::LoopMetrics;
using metrics::Registry;

template <class Cells>
std::uint64_t sum_all(const Registry& r, Cells LoopMetrics::*member) {
  return r.sum([member](const LoopMetrics& m) {
    std::uint64_t total = 0;
    for (const auto& cell : m.*member) total += cell.value();
    return total;
  });
}

SystemTopic::Totals read_totals(const Registry& r) {
  SystemTopic::Totals t;
  t.published = r.sum([](const LoopMetrics& m) { return m.events_published.value(); });
  t.delivered = sum_all(r, &LoopMetrics::events_delivered);
  t.dropped = sum_all(r, &LoopMetrics::events_dropped);
  t.conflated = r.sum([](const LoopMetrics& m) { return m.events_conflated.value(); });
  t.cutoffs = sum_all(r, &LoopMetrics::slow_consumer_cutoffs);
  t.refused = sum_all(r, &LoopMetrics::publish_refusals);
  t.age = r.sum(&LoopMetrics::event_age_at_flush_us);
  return t;
}

// The bound, in milliseconds, of the bucket where the q-quantile of the
// observations between two readings falls; negative without observations.
double age_quantile(const SystemTopic::Totals& now, const SystemTopic::Totals& before, double q) {
  const auto& bounds = metrics::kEventAgeMicrosBounds;
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < now.age.buckets.size(); ++i) count += now.age.buckets[i] - before.age.buckets[i];
  if (count == 0) return -1;
  const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count - 1)) + 1;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    seen += now.age.buckets[i] - before.age.buckets[i];
    if (seen >= rank) return static_cast<double>(bounds[i]) / 1000.0;
  }
  return static_cast<double>(bounds.back()) / 1000.0;  // beyond the last bound: at least that
}

// Writes JSON members in order: "{" at the first, "," between.
class JsonObject {
 public:
  explicit JsonObject(buf::StringSink& out) : out_(out) { out_.append("{"); }
  JsonObject(const JsonObject&) = delete;
  JsonObject& operator=(const JsonObject&) = delete;
  ~JsonObject() { out_.append("}"); }

  // Starts a member whose value the caller writes.
  buf::StringSink& key(std::string_view name) {
    if (!first_) out_.append(",");
    first_ = false;
    out_.append("\"");
    out_.append(name);  // the snapshot's own names: nothing to escape
    out_.append("\":");
    return out_;
  }
  template <std::integral Int>
  void number(std::string_view name, Int value) {
    char text[24];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    key(name).append(text, static_cast<std::size_t>(end - text));
  }
  // Shortest form that reads back the same; a negative value is null.
  void decimal(std::string_view name, double value) {
    if (value < 0) {
      key(name).append("null");
      return;
    }
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    key(name).append(text, static_cast<std::size_t>(end - text));
  }
  void string(std::string_view name, std::string_view value) { (void)proto::json::write_string(key(name), value); }

 private:
  buf::StringSink& out_;
  bool first_ = true;
};

}  // namespace

std::string_view SystemTopic::snapshot(const Registry& registry, const metrics::ServerGauges& server,
                                       std::span<const TopicSample> topics, const SnapshotTime& time) {
  const Totals now = read_totals(registry);
  const Totals before = first_ ? now : previous_;
  const double seconds = first_ ? 0 : std::chrono::duration<double>(time.now - previous_at_).count();
  const auto rate = [&](std::uint64_t Totals::*field) {
    return seconds > 0 ? static_cast<double>(now.*field - before.*field) / seconds : 0.0;
  };
  const auto connections = [&](metrics::Transport t) {
    return registry.sum([t](const LoopMetrics& m) { return m.connections_of(t).value(); });
  };
  json_.clear();
  buf::StringSink out(json_);
  {
    JsonObject j(out);
    j.number("v", 1);
    j.number("ts", std::chrono::duration_cast<std::chrono::milliseconds>(time.wall.time_since_epoch()).count());
    j.number("uptime_s", time.uptime.count());
    j.string("version", server.version);
    j.number("loops", registry.loops());
    j.key("connections");
    {
      JsonObject c(out);
      c.number("sse", connections(metrics::Transport::sse));
      c.number("ws", connections(metrics::Transport::ws));
      c.number("http", connections(metrics::Transport::http));
    }
    j.number("subscribers", registry.sum([](const LoopMetrics& m) { return m.subscribers.value(); }));
    j.number("topics", server.topics);
    j.key("rates");
    {
      JsonObject r(out);
      r.decimal("published", rate(&Totals::published));
      r.decimal("delivered", rate(&Totals::delivered));
      r.decimal("dropped", rate(&Totals::dropped));
      r.decimal("refused", rate(&Totals::refused));
      r.decimal("cutoffs", rate(&Totals::cutoffs));
    }
    j.key("totals");
    {
      JsonObject t(out);
      t.number("published", now.published);
      t.number("delivered", now.delivered);
      t.number("dropped", now.dropped);
      t.number("conflated", now.conflated);
      t.number("cutoffs", now.cutoffs);
      t.number("refused", now.refused);
    }
    j.key("age_ms");
    {
      JsonObject a(out);
      a.decimal("p50", age_quantile(now, before, 0.5));
      a.decimal("p99", age_quantile(now, before, 0.99));
    }
    j.key("pool");
    {
      JsonObject p(out);
      p.number("blocks", server.pool_blocks);
      p.number("in_use", server.pool_blocks - server.pool_free_blocks);
      p.number("reserve", server.pool_reserve);
      p.number("block_size", server.pool_block_size);
      p.number("min_free", server.pool_min_free_blocks);
    }
    j.key("top_topics");
    write_top_topics(topics, seconds);
  }
  keep_counts(topics);
  previous_ = now;
  previous_at_ = time.now;
  first_ = false;
  return json_;
}

const std::uint64_t* SystemTopic::published_before(std::string_view name) const {
  const auto end = counts_.begin() + static_cast<std::ptrdiff_t>(counted_);
  const auto at = std::lower_bound(counts_.begin(), end, name,
                                   [](const TopicCount& c, std::string_view n) { return c.name < n; });
  return at != end && at->name == name ? &at->published : nullptr;
}

void SystemTopic::write_top_topics(std::span<const TopicSample> topics, double seconds) {
  rows_.clear();
  for (const TopicSample& t : topics) {
    const std::uint64_t* before = published_before(t.name);
    const std::uint64_t then = before == nullptr ? t.published : *before;
    rows_.push_back({&t, seconds > 0 && t.published >= then ? static_cast<double>(t.published - then) / seconds : 0});
  }
  const std::size_t shown = std::min(max_topics_, rows_.size());
  std::partial_sort(rows_.begin(), rows_.begin() + static_cast<std::ptrdiff_t>(shown), rows_.end(),
                    [](const Row& a, const Row& b) {
                      if (a.rate != b.rate) return a.rate > b.rate;
                      if (a.topic->subscribers != b.topic->subscribers) return a.topic->subscribers > b.topic->subscribers;
                      return a.topic->name < b.topic->name;
                    });
  buf::StringSink out(json_);
  out.append("[");
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out.append(",");
    JsonObject row(out);
    row.string("name", rows_[i].topic->name);
    row.number("subscribers", rows_[i].topic->subscribers);
    row.decimal("rate", rows_[i].rate);
  }
  out.append("]");
}

void SystemTopic::keep_counts(std::span<const TopicSample> topics) {
  order_.clear();
  for (std::size_t i = 0; i < topics.size(); ++i) order_.push_back(static_cast<std::uint32_t>(i));
  std::sort(order_.begin(), order_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return topics[a].name < topics[b].name; });
  if (next_counts_.size() < topics.size()) next_counts_.resize(topics.size());
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const TopicSample& t = topics[order_[i]];
    next_counts_[i].name.assign(t.name);  // the string's capacity is kept
    next_counts_[i].published = t.published;
  }
  std::swap(counts_, next_counts_);
  counted_ = topics.size();
}

}  // namespace sluice::dashboard
