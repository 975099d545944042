// Owns: SystemFeed, the server's publisher of the system topic "$sys": on
// loop 0's timer (dashboard.interval_ms) it reads the loops' metrics, the
// pool and every topic's counts, and publishes one snapshot
// (dashboard/system_topic.hpp) that the dashboard page follows. The
// snapshot is bounded (the dashboard.max_topics busiest topics), and so is
// what the topic keeps of them (its history, like any topic's).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "dashboard/system_topic.hpp"
#include "hub/topic_book.hpp"
#include "metrics/registry.hpp"
#include "server/ops_view.hpp"

namespace sluice::server {

class SystemFeed {
 public:
  SystemFeed(const Config& config, const metrics::Registry& registry, const OpsView& ops, hub::TopicBook& book);

  // Publishes one snapshot. On loop 0's thread only.
  void tick();

 private:
  const metrics::Registry& registry_;
  const OpsView& ops_;
  hub::TopicBook& book_;
  dashboard::SystemTopic system_topic_;
  std::chrono::steady_clock::time_point started_;
  std::vector<std::string> names_;  // the sampled topics' names, reused
  std::vector<dashboard::TopicSample> samples_;
};

}  // namespace sluice::server
