// Owns: SystemTopic, which turns the server's metrics into the snapshot that
// the system topic carries once a second and the dashboard draws.
//
// The topic is "$sys": '$' is outside the alphabet of client topic names,
// so no client can publish to it, create it or pass one of its own events
// off as the server's; only the server's own timer publishes there (its
// events are named "snapshot"). A snapshot is one JSON object:
//
//   {"v":1,"ts":1735650000123,"uptime_s":3600,"version":"0.1.0","loops":2,
//    "connections":{"sse":10,"ws":3,"http":1},"subscribers":25,"topics":7,
//    "rates":{"published":120.5,"delivered":3400,"dropped":0,"refused":0,"cutoffs":0},
//    "totals":{"published":123456,"delivered":..,"dropped":..,"conflated":..,"cutoffs":..,"refused":..},
//    "age_ms":{"p50":0.25,"p99":2.5},
//    "pool":{"blocks":16384,"in_use":120,"reserve":256,"block_size":4096,"min_free":16000},
//    "top_topics":[{"name":"news","subscribers":3,"rate":12.5}]}
//
// Rates are per second since the previous snapshot; the age quantiles are
// the upper bounds of the event-age buckets the 50th and 99th percentile
// of the writes since the previous snapshot fell in (null when there were
// none). top_topics holds at most max_topics topics, the busiest first, so
// a snapshot's size is bounded whatever the number of topics.
//
// The snapshot is written straight into a buffer kept from the last one,
// and the topics' counts are kept in tables whose strings are reused: once
// the set of topics is steady, a snapshot allocates nothing, so a server
// serving the dashboard still publishes and delivers without allocating.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/loop_metrics.hpp"
#include "metrics/registry.hpp"
#include "metrics/scrape.hpp"

namespace sluice::dashboard {

inline constexpr std::string_view kSystemTopic = "$sys";
inline constexpr std::string_view kSnapshotEvent = "snapshot";

struct TopicSample {
  std::string_view name;
  std::uint64_t subscribers = 0;
  std::uint64_t published = 0;  // events published to it since it was made
};

struct SnapshotTime {
  std::chrono::steady_clock::time_point now;  // for rates
  std::chrono::system_clock::time_point wall;  // for "ts"
  std::chrono::seconds uptime{0};
};

class SystemTopic {
 public:
  static constexpr std::size_t kDefaultMaxTopics = 20;
  explicit SystemTopic(std::size_t max_topics = kDefaultMaxTopics) : max_topics_(max_topics) {}

  // One snapshot's JSON, valid until the next call. Reads the registry as
  // a scrape does (no lock a loop waits on); costs O(topics log topics).
  // Call it from one thread.
  [[nodiscard]] std::string_view snapshot(const metrics::Registry& registry, const metrics::ServerGauges& server,
                                          std::span<const TopicSample> topics, const SnapshotTime& time);

  struct Totals {
    std::uint64_t published = 0;
    std::uint64_t delivered = 0;
    std::uint64_t dropped = 0;
    std::uint64_t conflated = 0;
    std::uint64_t cutoffs = 0;
    std::uint64_t refused = 0;
    metrics::HistogramTotals<metrics::kEventAgeMicrosBounds> age;
  };

 private:
  std::size_t max_topics_;
  bool first_ = true;
  std::chrono::steady_clock::time_point previous_at_;
  Totals previous_;
  // A topic's count of events published, as of a snapshot.
  struct TopicCount {
    std::string name;
    std::uint64_t published = 0;
  };
  // The ranking of this snapshot's topics.
  struct Row {
    const TopicSample* topic;
    double rate;
  };

  // What `name` had published at the last snapshot, or nullptr.
  [[nodiscard]] const std::uint64_t* published_before(std::string_view name) const;
  // Writes top_topics, the busiest first.
  void write_top_topics(std::span<const TopicSample> topics, double seconds);
  // Keeps `topics`' counts, sorted by name, for the next snapshot's rates.
  void keep_counts(std::span<const TopicSample> topics);

  std::string json_;                         // the last snapshot
  std::vector<TopicCount> counts_;           // as of the last snapshot, the first counted_ sorted by name
  std::vector<TopicCount> next_counts_;      // built beside them, then swapped in
  std::size_t counted_ = 0;
  std::vector<std::uint32_t> order_;         // the topics' indices, sorted by name
  std::vector<Row> rows_;
};

}  // namespace sluice::dashboard
