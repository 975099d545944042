#include "dashboard/system_topic.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

namespace sluice::dashboard {

namespace {

using Json = nlohmann::ordered_json;
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
// observations between two readings falls; null without observations.
Json age_quantile(const SystemTopic::Totals& now, const SystemTopic::Totals& before, double q) {
  const auto& bounds = metrics::kEventAgeMicrosBounds;
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < now.age.buckets.size(); ++i) count += now.age.buckets[i] - before.age.buckets[i];
  if (count == 0) return nullptr;
  const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count - 1)) + 1;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    seen += now.age.buckets[i] - before.age.buckets[i];
    if (seen >= rank) return static_cast<double>(bounds[i]) / 1000.0;
  }
  return static_cast<double>(bounds.back()) / 1000.0;  // beyond the last bound: at least that
}

Json top_topics(std::span<const TopicSample> topics, const std::unordered_map<std::string, std::uint64_t>& before,
                double seconds, std::size_t limit) {
  struct Row {
    const TopicSample* topic;
    double rate;
  };
  std::vector<Row> rows;
  rows.reserve(topics.size());
  for (const TopicSample& t : topics) {
    const auto it = before.find(std::string(t.name));
    const std::uint64_t then = it == before.end() ? t.published : it->second;
    rows.push_back({&t, seconds > 0 && t.published >= then ? static_cast<double>(t.published - then) / seconds : 0});
  }
  const std::size_t shown = std::min(limit, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown), rows.end(),
                    [](const Row& a, const Row& b) {
                      if (a.rate != b.rate) return a.rate > b.rate;
                      if (a.topic->subscribers != b.topic->subscribers) return a.topic->subscribers > b.topic->subscribers;
                      return a.topic->name < b.topic->name;
                    });
  Json list = Json::array();
  for (std::size_t i = 0; i < shown; ++i) {
    list.push_back({{"name", rows[i].topic->name}, {"subscribers", rows[i].topic->subscribers}, {"rate", rows[i].rate}});
  }
  return list;
}

}  // namespace

std::string SystemTopic::snapshot(const Registry& registry, const metrics::ServerGauges& server,
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
  Json j;
  j["v"] = 1;
  j["ts"] = std::chrono::duration_cast<std::chrono::milliseconds>(time.wall.time_since_epoch()).count();
  j["uptime_s"] = time.uptime.count();
  j["version"] = server.version;
  j["loops"] = registry.loops();
  j["connections"] = {{"sse", connections(metrics::Transport::sse)},
                      {"ws", connections(metrics::Transport::ws)},
                      {"http", connections(metrics::Transport::http)}};
  j["subscribers"] = registry.sum([](const LoopMetrics& m) { return m.subscribers.value(); });
  j["topics"] = server.topics;
  j["rates"] = {{"published", rate(&Totals::published)}, {"delivered", rate(&Totals::delivered)},
                {"dropped", rate(&Totals::dropped)},     {"refused", rate(&Totals::refused)},
                {"cutoffs", rate(&Totals::cutoffs)}};
  j["totals"] = {{"published", now.published}, {"delivered", now.delivered}, {"dropped", now.dropped},
                 {"conflated", now.conflated}, {"cutoffs", now.cutoffs},     {"refused", now.refused}};
  j["age_ms"] = {{"p50", age_quantile(now, before, 0.5)}, {"p99", age_quantile(now, before, 0.99)}};
  j["pool"] = {{"blocks", server.pool_blocks},
               {"in_use", server.pool_blocks - server.pool_free_blocks},
               {"reserve", server.pool_reserve},
               {"block_size", server.pool_block_size},
               {"min_free", server.pool_min_free_blocks}};
  j["top_topics"] = top_topics(topics, previous_published_, seconds, max_topics_);

  previous_published_.clear();
  for (const TopicSample& t : topics) previous_published_.emplace(t.name, t.published);
  previous_ = now;
  previous_at_ = time.now;
  first_ = false;
  return j.dump();
}

}  // namespace sluice::dashboard
